import type { CoreDeps } from '../context.js';
import type { PostDoc } from '../posts/documents.js';
import type { PublishAttemptDoc } from './documents.js';
import { claimLease } from '../db/leases.js';
import type { JobContext } from '../jobs/define-job.js';
import { attemptId, latestAttempt, recordAttempt } from './attempts.js';
import { OUTCOME_UNKNOWN_TEXT } from './error-texts.js';
import { retryOrGiveUp } from './failure.js';
import { enqueuePoll } from './poll-enqueue.js';
import { failPost, requeuePost } from './post-outcome.js';
import { enqueuePostPublish } from './schedule.js';
import { publishingSettings } from './settings.js';
import { logFailure } from '../db/unreachable.js';

/** How often the worker sweeps (RECURRING_JOBS). */
export const SWEEP_EVERY_MS = 30_000;
/** Posts looked at per sweep and state; the rest wait for the next sweep. */
const SWEEP_BATCH = 200;

/**
 * `posts.sweep`: nothing stays QUEUE or PUBLISHING forever. A QUEUE post due more than lostJobAfterMs ago with
 * no live attempt gets its job again (lost jobs). A PUBLISHING post whose attempt lease ran out (its worker
 * died) is settled by how far the attempt got: a publish_id → status polling resumes; init_sent without one →
 * ERROR "outcome unknown" (never sent again); only claimed → the init never left, so a new attempt.
 * Each expired lease is resolved once (an insert-once claim), even by two sweeps at a time.
 */
export async function performSweep(context: Pick<JobContext, 'deps'>): Promise<void> {
  const { deps } = context;
  await requeueLostJobs(deps);
  const publishing = await deps.db.posts.find({ state: 'PUBLISHING' }, { limit: SWEEP_BATCH }).toArray();
  for (const post of publishing) {
    try {
      await resolveStalled(deps, post);
    } catch (error) {
      logFailure(deps.logger, 'error', error, { postId: post._id }, 'sweep could not resolve a publishing post');
    }
  }
}

async function requeueLostJobs(deps: CoreDeps): Promise<void> {
  const now = deps.now();
  const cutoff = new Date(now.getTime() - publishingSettings.lostJobAfterMs);
  const lost = await deps.db.posts.find({ state: 'QUEUE', dueAt: { $lt: cutoff } }, { limit: SWEEP_BATCH }).toArray();
  for (const post of lost) {
    const latest = await latestAttempt(deps, post._id);
    if (latest?.phase === 'claimed' && latest.leaseExpiresAt > now) continue;
    // At most one re-enqueue per post per lostJobAfterMs, however far behind the worker is.
    const once = await claimLease(deps.db, `publish-requeue:${post._id}`, {
      ttlMs: publishingSettings.lostJobAfterMs,
      now,
    });
    if (once) await enqueuePostPublish(deps, { _id: post._id, dueAt: now });
  }
}

async function resolveStalled(deps: CoreDeps, post: PostDoc): Promise<void> {
  const now = deps.now();
  const attempt = await latestAttempt(deps, post._id);
  if (!attempt) {
    // PUBLISHING is only ever set after an attempt was inserted; without one nothing was sent.
    if (await requeuePost(deps, post, now)) await enqueuePostPublish(deps, { _id: post._id, dueAt: now });
    return;
  }
  if (attempt.leaseExpiresAt > now) return;
  const resolution = `publish-sweep:${attempt._id}:${attempt.leaseExpiresAt.getTime()}`;
  if (!(await claimLease(deps.db, resolution, { now }))) return;
  deps.logger.warn(
    { postId: post._id, attempt: attempt.n, phase: attempt.phase },
    'sweeping a stalled publish attempt',
  );

  if (attempt.publishId) return resumePolling(deps, post, attempt);
  switch (attempt.phase) {
    case 'claimed':
    case 'created_nothing':
    case 'held':
      if (attempt.phase === 'claimed') {
        await recordAttempt(deps, attempt, {
          phase: 'created_nothing',
          event: { what: 'created_nothing', detail: 'the worker stopped before the init was sent' },
        });
      }
      return retryOrGiveUp(deps, post, attempt.n, {
        delayMs: 0,
        rateLimited: false,
        reason: 'the worker stopped before the init was sent',
      });
    default:
      // init_sent (or later) without a publish_id: TikTok's answer is lost and it may hold the post.
      await recordAttempt(deps, attempt, {
        phase: 'outcome_unknown',
        event: { what: 'outcome_unknown', detail: 'the worker stopped after the init was sent; the answer is lost' },
      });
      await failPost(deps, post, OUTCOME_UNKNOWN_TEXT, { refund: false });
  }
}

async function resumePolling(deps: CoreDeps, post: PostDoc, attempt: PublishAttemptDoc): Promise<void> {
  const [platform, firstMedia] = await Promise.all([
    deps.db.platforms.findOne({ _id: post.platformId }),
    post.mediaIds[0] ? deps.db.media.findOne({ _id: post.mediaIds[0] }) : null,
  ]);
  await recordAttempt(
    deps,
    { _id: attemptId(post._id, attempt.n) },
    {
      event: { what: 'polling_resumed', detail: 'the previous worker stopped; status polling resumes' },
    },
  );
  await enqueuePoll(deps, {
    postId: post._id,
    attempt: attempt.n,
    publishId: attempt.publishId!,
    kind: firstMedia?.mediaType === 'image' ? 'photo' : 'video',
    handle: platform?.displayHandle ?? null,
    startedAt: attempt.claimedAt,
  });
}
