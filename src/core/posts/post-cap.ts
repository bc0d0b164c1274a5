import type { CoreDeps, Scope } from '../context.js';
import { monthlyPeriod, spendFromAllowance, type Spend } from '../db/allowance.js';
import type { PostDoc } from './documents.js';
import { AppError } from '../errors.js';
import { limitsOf } from '../plans.js';

/** The ledger pool of an account's monthly post cap. */
export function postCapPool(accountId: string): string {
  return `posts:${accountId}`;
}

/**
 * Spends one unit of the account's monthly post cap for the root post `postId` (the month it is
 * queued in, UTC). Throws 402 `post_limit_reached` when the month's cap is used up.
 */
export async function spendPostCap(deps: CoreDeps, scope: Scope, postId: string): Promise<Spend> {
  const account = await deps.db.accounts.findOne({ _id: scope.accountId });
  const plan = account?.plan ?? 'free';
  const allowance = limitsOf(deps.plans, plan).monthlyPosts;
  const period = monthlyPeriod(deps.now());
  try {
    return await spendFromAllowance(deps.db, {
      pool: postCapPool(scope.accountId),
      period,
      allowance,
      ref: postId,
      limitCode: 'post_limit_reached',
    });
  } catch (error) {
    if (error instanceof AppError && error.code === 'post_limit_reached') {
      throw new AppError(
        'post_limit_reached',
        `The monthly post cap of the ${plan} plan (${allowance} posts) is used up for ${period}; it resets on the 1st (UTC). Drafts do not count.`,
      );
    }
    throw error;
  }
}

/**
 * Gives a post's cap unit back. Deletes the ledger slot only while it still belongs to this post
 * (`ref`), so refunding twice can never free a slot another post has taken since.
 */
export async function refundPostCap(deps: CoreDeps, post: Pick<PostDoc, '_id' | 'capSpend'>): Promise<void> {
  if (!post.capSpend) return;
  await deps.db.ledger.deleteOne({ _id: post.capSpend.id, ref: post._id });
}
