import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps } from '../context.js';
import type { PostDoc } from '../posts/documents.js';
import { claimLease, releaseLease } from '../db/leases.js';
import { POST_EDIT_LEASE_TTL_MS, postLeaseKey } from '../posts/post-lease.js';
import { ROOT_FAILED_TEXT } from './error-texts.js';
import { enqueuePostPublish } from './schedule.js';

/** How long to wait for the API to finish a change of a reply before giving up on it (its lease lasts 30 s). */
const CHILD_LEASE_WAIT_MS = POST_EDIT_LEASE_TTL_MS + 5_000;

/**
 * Moves a root's waiting replies on once the root is settled: PUBLISHED → each reply is due at the publish
 * time + its delayInMinutes and enqueued; ERROR → each ends in ERROR too. Replies wait in QUEUE with dueAt
 * null (the API created them so); each is written under its edit lease, as the API writes queued posts.
 */
export async function settleChildren(
  deps: CoreDeps,
  root: PostDoc,
  outcome: 'PUBLISHED' | 'ERROR',
  publishedAt = deps.now(),
): Promise<void> {
  if (root.parentPostId !== null) return;
  // By `_id`: a query on groupId would read the whole posts collection on FerretDB, once per settled post.
  for (const childId of root.replyIds ?? []) {
    const child = await deps.db.posts.findOne({ _id: childId });
    if (!child || child.state !== 'QUEUE' || child.dueAt !== null) continue;
    await underEditLease(deps, child._id, async () => {
      const now = deps.now();
      if (outcome === 'ERROR') {
        await deps.db.posts.updateOne(
          { _id: child._id, state: 'QUEUE' },
          { $set: { state: 'ERROR', errorText: ROOT_FAILED_TEXT, updatedAt: now } },
        );
        return;
      }
      const dueAt = new Date(publishedAt.getTime() + (child.delayInMinutes ?? 0) * 60_000);
      const result = await deps.db.posts.updateOne(
        { _id: child._id, state: 'QUEUE', dueAt: null },
        { $set: { dueAt, updatedAt: now } },
      );
      if (result.modifiedCount > 0) await enqueuePostPublish(deps, { _id: child._id, dueAt });
    });
  }
}

async function underEditLease(deps: CoreDeps, postId: string, fn: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + CHILD_LEASE_WAIT_MS;
  for (;;) {
    const lease = await claimLease(deps.db, postLeaseKey(postId), { ttlMs: POST_EDIT_LEASE_TTL_MS, now: deps.now() });
    if (lease) {
      try {
        return await fn();
      } finally {
        await releaseLease(deps.db, lease);
      }
    }
    if (Date.now() > deadline) {
      deps.logger.warn({ postId }, 'a thread reply stayed locked by an edit; it was left as it is');
      return;
    }
    await sleep(200);
  }
}
