import { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import { countSpent, monthlyPeriod } from '../db/allowance.js';
import { postCapPool } from '../posts/post-cap.js';
import { accountLimits, creditPoolId, nextMonthlyReset } from './credits.js';

const PoolUsageSchema = z.object({
  used: z.int().min(0).describe('spent this month'),
  allowance: z.int().min(0).describe("the plan's monthly allowance"),
  remaining: z.int().min(0),
  resetsAt: z.iso.datetime().describe('when the pool starts afresh: the 1st of next month, 00:00 UTC'),
});

export const UsageSchema = z
  .object({
    plan: z.string().describe("the account's plan"),
    period: z.string().describe('the calendar month counted, UTC (YYYY-MM)'),
    captionCredits: PoolUsageSchema.describe('caption generations (1 per caption call or topic generation)'),
    imageCredits: PoolUsageSchema.describe('AI images (1 per generated slide image)'),
    monthlyPosts: PoolUsageSchema.describe('posts queued to publish (drafts do not count until published)'),
  })
  .meta({ id: 'Usage' });
export type Usage = z.infer<typeof UsageSchema>;

/** What the caller's account has used of each monthly pool; shared by all its workspaces. */
export async function readUsage(deps: CoreDeps, scope: Scope): Promise<Usage> {
  const now = deps.now();
  const period = monthlyPeriod(now);
  const resetsAt = nextMonthlyReset(now).toISOString();
  const { plan, limits } = await accountLimits(deps, scope.accountId);
  const pool = async (id: string, allowance: number) => {
    const used = await countSpent(deps.db.ledger, id, period);
    return { used, allowance, remaining: Math.max(0, allowance - used), resetsAt };
  };
  const [captionCredits, imageCredits, monthlyPosts] = await Promise.all([
    pool(creditPoolId('caption', scope.accountId), limits.captionCredits),
    pool(creditPoolId('image', scope.accountId), limits.imageCredits),
    pool(postCapPool(scope.accountId), limits.monthlyPosts),
  ]);
  return { plan, period, captionCredits, imageCredits, monthlyPosts };
}
