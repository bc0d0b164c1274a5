import type { CoreDeps } from '../context.js';

/** Removes deleted posts' insights: their records and snapshots (the posts stay on TikTok, our numbers go). */
export async function forgetPostInsights(
  deps: CoreDeps,
  workspaceId: string,
  postIds: readonly string[],
): Promise<void> {
  if (postIds.length === 0) return;
  await deps.db.postInsights.deleteMany({ _id: { $in: [...postIds] }, workspaceId });
  await deps.db.postSnapshots.deleteMany({ postId: { $in: [...postIds] }, workspaceId });
}
