import type { CoreDeps } from '../context.js';
import { claimLease, releaseLease, type Lease } from '../db/leases.js';
import { AppError } from '../errors.js';

/** How long the API may hold a post's edit lease; a change is a few writes. */
export const POST_EDIT_LEASE_TTL_MS = 30_000;

/** The lease under which a post in DRAFT or QUEUE is written; the engine takes it to claim the post. */
export function postLeaseKey(postId: string): string {
  return `post:${postId}`;
}

/**
 * Runs `fn` holding the edit leases of `postIds`, so no change races the engine's claim (FerretDB
 * would lose fields of concurrent updates). When one is held elsewhere nothing runs: 409 conflict.
 */
export async function withPostLeases<T>(deps: CoreDeps, postIds: readonly string[], fn: () => Promise<T>): Promise<T> {
  const held: Lease[] = [];
  try {
    for (const postId of postIds) {
      const lease = await claimLease(deps.db, postLeaseKey(postId), { ttlMs: POST_EDIT_LEASE_TTL_MS });
      if (!lease) {
        throw new AppError(
          'conflict',
          'The post is being published or changed right now; try again when that has finished.',
        );
      }
      held.push(lease);
    }
    return await fn();
  } finally {
    for (const lease of held) await releaseLease(deps.db, lease);
  }
}
