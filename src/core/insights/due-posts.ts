import type { CoreDeps } from '../context.js';

/** A post whose next snapshot is due: what the collector asks TikTok about. */
export interface DuePost {
  postId: string;
  /** TikTok's post id, to query. */
  releaseId: string;
  nextSlot: number;
  nextDueAt: Date;
}

/**
 * At most `limit` posts of one connected account (platform) whose next snapshot is due at `now`,
 * the most overdue first. A record still waiting for TikTok's post id takes it from its post first
 * (a crash between the post's late release and the record's copy is healed here).
 */
export async function listDuePosts(deps: CoreDeps, platformId: string, now: Date, limit: number): Promise<DuePost[]> {
  await copyLateReleases(deps, platformId);
  const docs = await deps.db.postInsights
    .find(
      { platformId, status: 'collecting', nextDueAt: { $lte: now }, releaseId: { $ne: null } },
      { projection: { releaseId: 1, nextSlot: 1, nextDueAt: 1 } },
    )
    .sort({ nextDueAt: 1, _id: 1 })
    .limit(limit)
    .toArray();
  return docs.map((doc) => ({
    postId: doc._id,
    releaseId: doc.releaseId as string,
    nextSlot: doc.nextSlot as number,
    nextDueAt: doc.nextDueAt as Date,
  }));
}

async function copyLateReleases(deps: CoreDeps, platformId: string): Promise<void> {
  const waiting = await deps.db.postInsights
    .find({ platformId, status: 'collecting', releaseId: null }, { projection: { _id: 1 } })
    .toArray();
  if (waiting.length === 0) return;
  const posts = await deps.db.posts
    .find({ _id: { $in: waiting.map((doc) => doc._id) }, releaseId: { $ne: null } }, { projection: { releaseId: 1 } })
    .toArray();
  for (const post of posts) {
    await deps.db.postInsights.updateOne(
      { _id: post._id, releaseId: null },
      { $set: { releaseId: post.releaseId, updatedAt: deps.now() } },
    );
  }
}
