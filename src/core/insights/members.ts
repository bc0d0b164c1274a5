import type { CoreDeps } from '../context.js';
import { readHint, raiseHint } from '../db/position-hints.js';
import { isDuplicateKeyError } from '../errors.js';

/** The `_id` of an account's member `n` (`insight_members`). */
export function memberId(platformId: string, n: number): string {
  return `${platformId}#${n}`;
}

/**
 * Adds `postId` to its account's members at the first free slot, by insert-once (two adders at once each get
 * a slot of their own), starting at the last slot a hint recorded, so an account's thousandth post is not a
 * thousand refused inserts. The hint is never trusted for a decision: a stale one costs a few more tries.
 */
export async function addMember(deps: CoreDeps, platformId: string, postId: string): Promise<void> {
  const hintId = `insight-members:${platformId}`;
  for (let n = await readHint(deps.db.positionHints, hintId); ; n += 1) {
    try {
      await deps.db.insightMembers.insertOne({ _id: memberId(platformId, n), postId, createdAt: deps.now() });
      await raiseHint(deps.db.positionHints, hintId, n + 1);
      return;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
}
