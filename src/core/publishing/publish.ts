import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps } from '../context.js';
import type { PostDoc } from '../posts/documents.js';
import { createdNothing, type PublishAttemptDoc } from './documents.js';
import { claimLease, releaseLease } from '../db/leases.js';
import type { JobContext } from '../jobs/define-job.js';
import { POST_EDIT_LEASE_TTL_MS, postLeaseKey } from '../posts/post-lease.js';
import { claimAttempt, latestAttempt, recordAttempt } from './attempts.js';
import { enqueuePostPublish } from './schedule.js';
import { runAttempt } from './send.js';
import { publishingSettings } from './settings.js';

/** How long a publish job waits for an API change of the post (its edit lease) before trying again later. */
const EDIT_WAIT_MS = 3_000;

/**
 * `posts.publish`: claims a due QUEUE post and publishes it. Under the post's edit lease (so no API change
 * races the claim): the post must be QUEUE and due (else the job is stale: the post was published, deleted
 * or rescheduled), attempt #n is inserted (the one winner), and the post becomes PUBLISHING. Then the attempt
 * runs outside the lease. A job run twice, or two jobs for one post, claim at most one attempt.
 */
export async function performPublish(data: { postId: string }, context: JobContext): Promise<void> {
  const { deps } = context;
  const claimed = await claimPost(deps, data.postId);
  if (claimed) await runAttempt(deps, context, claimed.post, claimed.attempt);
}

async function claimPost(
  deps: CoreDeps,
  postId: string,
): Promise<{ post: PostDoc; attempt: PublishAttemptDoc } | null> {
  const lease = await editLease(deps, postId);
  if (!lease) {
    // The API is changing the post right now; look again shortly (a reschedule leaves this job stale).
    const post = await deps.db.posts.findOne({ _id: postId });
    if (post?.state === 'QUEUE' && post.dueAt) {
      await enqueuePostPublish(deps, { _id: postId, dueAt: new Date(deps.now().getTime() + EDIT_WAIT_MS) });
    }
    return null;
  }
  try {
    const post = await deps.db.posts.findOne({ _id: postId });
    if (!post || post.state !== 'QUEUE' || !post.dueAt) return null;
    if (post.dueAt.getTime() > deps.now().getTime() + publishingSettings.dueSlackMs) return null;

    const latest = await latestAttempt(deps, postId);
    if (latest && !createdNothing(latest.phase)) {
      if (latest.phase !== 'claimed') {
        // An init may have left for this post: never send another. The sweeper settles it by its phase.
        await setPublishing(deps, post);
        return null;
      }
      // Claimed, but the post never became PUBLISHING: once the claim's lease ran out its claimer is gone,
      // and nothing left for TikTok (init_sent comes after PUBLISHING). The sweeper brings the post back then.
      if (latest.leaseExpiresAt.getTime() > deps.now().getTime()) return null;
      await recordAttempt(deps, latest, {
        phase: 'created_nothing',
        event: { what: 'created_nothing', detail: 'the claim was abandoned before the post became PUBLISHING' },
      });
    }
    const attempt = await claimAttempt(deps, post, (latest?.n ?? 0) + 1);
    if (!attempt) return null;
    await setPublishing(deps, post);
    return { post: { ...post, state: 'PUBLISHING' }, attempt };
  } finally {
    await releaseLease(deps.db, lease);
  }
}

async function setPublishing(deps: CoreDeps, post: PostDoc): Promise<void> {
  await deps.db.posts.updateOne(
    { _id: post._id, state: 'QUEUE' },
    { $set: { state: 'PUBLISHING', updatedAt: deps.now() } },
  );
}

async function editLease(deps: CoreDeps, postId: string) {
  const deadline = Date.now() + EDIT_WAIT_MS;
  for (;;) {
    const lease = await claimLease(deps.db, postLeaseKey(postId), { ttlMs: POST_EDIT_LEASE_TTL_MS, now: deps.now() });
    if (lease || Date.now() > deadline) return lease;
    await sleep(100);
  }
}
