import type { CoreDeps } from '../context.js';
import type { PostDoc } from '../posts/documents.js';
import { AppError } from '../errors.js';
import type { JobContext } from '../jobs/define-job.js';
import type { PlatformDoc } from '../platforms/documents.js';
import type { PublishState } from '../providers/port.js';
import { attemptId, recordAttempt } from './attempts.js';
import { OUTCOME_UNCONFIRMED_TEXT } from './error-texts.js';
import { createdNothing } from './documents.js';
import { attemptsUsed, describeError, holdAttempt, PublishHold, retryOrGiveUp } from './failure.js';
import type { PollStatusData } from './job-handles.js';
import { enqueuePoll } from './poll-enqueue.js';
import { failPost, markPublished, recordLateRelease } from './post-outcome.js';
import { publishingSettings, retryDelayMs } from './settings.js';

/**
 * One status poll of a sent post (contract 4.6), through the provider's `advance`, which also takes the step the
 * network waits for (Instagram: media_publish of a ready container). Published with an id → PUBLISHED with the
 * id exactly as the network sent it; without one → PUBLISHED with the profile URL, then the id is awaited up to
 * 24 h where the network shows it later; failed but created nothing (media not downloaded, container expired) →
 * a new attempt (retryAnew); any other failure → ERROR in plain words; a PublishHold → QUEUE until its time; no
 * final status within the limit → ERROR "outcome unconfirmed". A step runs under its task's claim; a step run
 * again (a retry after an error, or after its worker died) asks the network again, and every write is
 * conditional on the state it moves from, so nothing changes twice.
 */
export async function performPollStatus(data: PollStatusData, context: JobContext): Promise<void> {
  const deps = context.deps;
  const post = await deps.db.posts.findOne({ _id: data.postId });
  if (!post) return;
  const searching = post.state === 'PUBLISHED' && post.releaseId === null && data.completedAt !== null;
  if (post.state !== 'PUBLISHING' && !searching) return;
  const attempt = await deps.db.publishAttempts.findOne({ _id: attemptId(data.postId, data.attempt) });
  // An attempt already settled as created-nothing (a pull failure sent again, a hold) is no longer this poll's.
  if (!attempt || attempt.publishId !== data.publishId || createdNothing(attempt.phase)) return;

  let state: PublishState | null = null;
  const platform = await deps.db.platforms.findOne({ _id: post.platformId });
  try {
    state = await advancePublish(deps, platform, data.publishId);
  } catch (error) {
    // The network refused to publish until later and created nothing: the post waits in QUEUE until then.
    if (error instanceof PublishHold && !searching) return holdAttempt(deps, post, attempt, error);
    await recordAttempt(deps, attempt, { event: { what: 'status_failed', detail: describeError(error) } });
    if (error instanceof AppError && error.code === 'conflict' && !searching) {
      // The account must be reconnected: no status can be read, and the network may have published the post.
      await failPost(deps, post, `${OUTCOME_UNCONFIRMED_TEXT} (${error.message})`, { refund: false });
      return;
    }
  }
  // Each new status is recorded, and the post ids when they appear (moderation releases them later).
  if (state && (state.status !== data.lastStatus || state.releaseIds.length > 0)) {
    await recordAttempt(deps, attempt, { event: { what: 'status', detail: state.description } });
  }
  await settle(deps, post, platform, data, state, searching);
}

async function settle(
  deps: CoreDeps,
  post: PostDoc,
  platform: PlatformDoc | null,
  data: PollStatusData,
  state: PublishState | null,
  searching: boolean,
): Promise<void> {
  const now = deps.now();
  const next = { ...data, polls: data.polls + 1, lastStatus: state?.status ?? data.lastStatus };
  const step = {
    ...next,
    startedAt: new Date(data.startedAt),
    completedAt: data.completedAt ? new Date(data.completedAt) : null,
  };
  if (platform && state?.outcome === 'published') {
    const releaseId = state.releaseIds[0] ?? null;
    const publishing = deps.providers.of(platform).publishing;
    const releaseUrl = state.releaseUrl ?? publishing.releaseUrl(data.handle, data.kind, releaseId);
    if (releaseId !== null) {
      if (searching) await recordLateRelease(deps, post._id, { releaseId, releaseUrl });
      else await markPublished(deps, post, { releaseId, releaseUrl });
      return;
    }
    // Private or still in moderation: published, and the id is looked for a while (contract 4.6) where the
    // network may show it later.
    if (!searching) {
      if (!(await markPublished(deps, post, { releaseId: null, releaseUrl }))) return;
      if (publishing.idShownLater) return enqueuePoll(deps, { ...step, completedAt: now });
      return;
    }
  } else if (state?.failure) {
    if (searching) return;
    if (state.failure.retryable) return retryAnew(deps, post, data.attempt, state.failure);
    await failPost(deps, post, state.failure.text, { refund: false });
    return;
  }
  if (searching) {
    if (now.getTime() - step.completedAt!.getTime() > publishingSettings.idSearchWithinMs) {
      deps.logger.info({ postId: post._id }, 'the network never released the post id; the post keeps its profile URL');
      return;
    }
    return enqueuePoll(deps, step);
  }
  if (now.getTime() - step.startedAt.getTime() > publishingSettings.terminalWithinMs) {
    const waited = Math.round((now.getTime() - step.startedAt.getTime()) / 1000);
    await recordAttempt(
      deps,
      { _id: attemptId(post._id, data.attempt) },
      {
        event: { what: 'outcome_unconfirmed', detail: `no final status after ${waited} s` },
      },
    );
    await failPost(deps, post, OUTCOME_UNCONFIRMED_TEXT, { refund: false });
    return;
  }
  return enqueuePoll(deps, step);
}

/**
 * The network created nothing and a new attempt may work: it could not download the media (a connection error on
 * our side of the pull; its docs say to retry while the URL is valid) or its container expired unpublished. The
 * post gets a new attempt, as an init that created nothing does, until the attempts are used up. A proxy
 * dropping one request during a restart no longer ends a post.
 */
async function retryAnew(
  deps: CoreDeps,
  post: PostDoc,
  n: number,
  failure: NonNullable<PublishState['failure']>,
): Promise<void> {
  const reason = `FAILED ${failure.reason}`;
  await recordAttempt(
    deps,
    { _id: attemptId(post._id, n) },
    {
      phase: 'created_nothing',
      event: { what: 'created_nothing', detail: reason },
    },
  );
  const max = publishingSettings.maxAttempts;
  if (n >= max && (await attemptsUsed(deps, post._id, n)) >= max) {
    await failPost(deps, post, failure.text, { refund: true });
    return;
  }
  deps.logger.warn({ postId: post._id, attempt: n, reason }, 'the network created nothing; publishing again');
  await retryOrGiveUp(deps, post, n, { delayMs: retryDelayMs(n + 1), rateLimited: false, reason });
}

async function advancePublish(deps: CoreDeps, platform: PlatformDoc | null, publishId: string): Promise<PublishState> {
  if (!platform) throw new AppError('conflict', 'The account of this post was removed from the workspace.');
  return deps.providers.of(platform).publishing.advance(deps, platform, publishId);
}
