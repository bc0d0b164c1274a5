import type { Cluster } from './cluster.js';
import type { CreatedPost } from './seed.js';

/**
 * Publish attempts of the bench posts, per holder and per phase. A worker process takes a fresh holder id
 * at every start (src/core/publishing/worker-id.ts), so with no restarts one id is one process.
 */
export async function readAttempts(
  cluster: Cluster,
  posts: readonly CreatedPost[],
): Promise<{ total: number; byWorker: Map<string, number>; byPhase: Map<string, number> }> {
  const docs = await cluster.db.publishAttempts
    .find({ postId: { $in: posts.map((p) => p.postId) } }, { projection: { worker: 1, phase: 1, claimedAt: 1 } })
    .sort({ claimedAt: 1 })
    .toArray();
  const byWorker = new Map<string, number>();
  const byPhase = new Map<string, number>();
  for (const doc of docs) {
    byWorker.set(doc.worker, (byWorker.get(doc.worker) ?? 0) + 1);
    byPhase.set(doc.phase, (byPhase.get(doc.phase) ?? 0) + 1);
  }
  return { total: docs.length, byWorker, byPhase };
}
