import { z } from 'zod';

/** Monthly allowances of one plan. Credits are per account and shared by its workspaces. */
export const PlanLimitsSchema = z.object({
  captionCredits: z.number().int().min(0).describe('caption generations per calendar month'),
  imageCredits: z.number().int().min(0).describe('AI images per calendar month'),
  monthlyPosts: z.number().int().min(0).describe('posts created per calendar month'),
});
export type PlanLimits = z.infer<typeof PlanLimitsSchema>;

/** The plan table: plan name to limits. Overridable with POSTDECK_PLANS_FILE, no code change. */
export const PlanTableSchema = z
  .record(z.string().regex(/^[a-z0-9_-]{1,40}$/), PlanLimitsSchema)
  .refine((table) => 'free' in table, { message: 'the plan table must define a "free" plan' })
  .refine((table) => table.free === undefined || table.free.imageCredits === 0, {
    message: 'the free plan includes 0 image credits',
  });
export type PlanTable = z.infer<typeof PlanTableSchema>;

/** Shipped defaults; the spec fixes only the free plan's zero image credits. */
export const DEFAULT_PLANS: PlanTable = Object.freeze({
  free: { captionCredits: 20, imageCredits: 0, monthlyPosts: 30 },
  creator: { captionCredits: 300, imageCredits: 150, monthlyPosts: 300 },
  team: { captionCredits: 2000, imageCredits: 1000, monthlyPosts: 3000 },
  // A self-hosted install's default (DEFAULT_PLAN): use is still counted, but no one hits a cap they did not set.
  unlimited: { captionCredits: 1_000_000, imageCredits: 1_000_000, monthlyPosts: 1_000_000 },
});

/** Limits for a plan name; an unknown name (a plan removed from the table) falls back to free. */
export function limitsOf(plans: PlanTable, plan: string): PlanLimits {
  return plans[plan] ?? (plans.free as PlanLimits);
}
