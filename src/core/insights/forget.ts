import type { CoreDeps } from '../context.js';

/**
 * Removes deleted posts' insights: their records, snapshots and noted absences (the posts stay on TikTok, our
 * numbers go). Their members stay: the member walk needs its slots unbroken, and a run passes a member
 * without a record.
 */
export async function forgetPostInsights(
  deps: CoreDeps,
  workspaceId: string,
  postIds: readonly string[],
): Promise<void> {
  if (postIds.length === 0) return;
  await deps.db.postInsights.deleteMany({ _id: { $in: [...postIds] }, workspaceId });
  await deps.db.postSnapshots.deleteMany({ postId: { $in: [...postIds] }, workspaceId });
  await deps.db.insightMisses.deleteMany({ _id: { $in: [...postIds] }, workspaceId });
}
