import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps, Scope } from '../context.js';
import type { MediaDoc } from '../media/documents.js';
import type { PlatformDoc } from '../platforms/documents.js';
import type { PostDoc } from '../posts/documents.js';
import type { PublishAttemptDoc } from './documents.js';
import type { JobContext } from '../jobs/define-job.js';
import { loadPostMedia } from '../posts/post-media.js';
import type { Provider } from '../providers/port.js';
import { AttemptLost, attemptWritesSettled, recordAttempt } from './attempts.js';
import { describeError, judgeFailure, PublishRefusal, settleFailedAttempt } from './failure.js';
import { failPost } from './post-outcome.js';
import { enqueuePoll, pollingLeaseMs } from './poll-enqueue.js';
import { publishingSettings } from './settings.js';
import { isDatabaseUnreachable, logFailure, retryWhileUnreachable } from '../db/unreachable.js';

/** How often a step that failed on the unreachable database is tried again (each try waits for a server too). */
const DATABASE_RETRY_MS = 1_000;

/** What the init needs, gathered and checked before anything leaves for the network. */
interface Prepared {
  platform: PlatformDoc;
  provider: Provider;
  kind: string;
  media: MediaDoc[];
}

/**
 * Runs attempt #n of a post the caller just claimed (post PUBLISHING): checks the post against its network's
 * rules for the account right now, writes `init_sent`, sends the init through the provider, stores the
 * publish id at once, uploads what the init asks for, and hands over to status polling. Every failure is settled
 * here (see failure.ts); the attempt's lease is renewed the whole time.
 */
export async function runAttempt(
  deps: CoreDeps,
  context: Pick<JobContext, 'touch'> | null,
  post: PostDoc,
  attempt: PublishAttemptDoc,
): Promise<void> {
  const keepAlive = keepAttemptAlive(deps, context, attempt);
  // While the database is unreachable the attempt waits for it: an outage is neither a failure of the
  // attempt (it would use one up) nor a reason to lose the network's answer.
  const leaseMs = publishingSettings.attemptLeaseMs;
  try {
    let prepared: Prepared;
    let init: { publishId: string; upload?: () => Promise<void> };
    try {
      ({ prepared, init } = await untilInitAnswered(deps, post, attempt));
    } catch (error) {
      if (error instanceof AttemptLost) {
        deps.logger.warn({ postId: post._id, attempt: attempt.n }, 'publish attempt lost its lease before the init');
        return;
      }
      const verdict = judgeFailure(error, attempt.n + 1);
      await retryWhileUnreachable(() => settleFailedAttempt(deps, post, attempt, verdict), leaseMs);
      return;
    }
    // From here the network has the publish: never sent again; its status decides the outcome. Without an upload
    // the polling starts at once, so this write also carries the lease over the first poll's wait. Only this
    // process knows the publish_id, so it waits for the database as long as the outcome may take.
    await retryWhileUnreachable(
      () =>
        recordAttempt(deps, attempt, {
          phase: 'init_answered',
          publishId: init.publishId,
          event: { what: 'init_answered', detail: `publish_id ${init.publishId}` },
          ...(init.upload ? {} : { leaseMs: pollingLeaseMs(0) }),
        }),
      publishingSettings.terminalWithinMs,
    );
    if (init.upload && !(await uploaded(deps, post, attempt, prepared, init.publishId, init.upload))) return;
    // The poll job writes the attempt from now on: no renewal of ours may land beside its writes.
    await keepAlive.stop();
    const step = {
      postId: post._id,
      attempt: attempt.n,
      publishId: init.publishId,
      kind: prepared.kind,
      handle: prepared.platform.displayHandle,
      startedAt: attempt.claimedAt,
    };
    await retryWhileUnreachable(() => enqueuePoll(deps, step, { leaseWritten: !init.upload }), leaseMs);
  } finally {
    await keepAlive.stop();
  }
}

/**
 * Prepares and sends the init. A step before the init leaves that fails on the unreachable database runs
 * again once it answers (within the lease: `init_sent` is written only while the lease is live, so a
 * lapsed claim the sweeper may be settling never sends). Once the init left, nothing here runs twice.
 */
async function untilInitAnswered(
  deps: CoreDeps,
  post: PostDoc,
  attempt: PublishAttemptDoc,
): Promise<{ prepared: Prepared; init: { publishId: string; upload?: () => Promise<void> } }> {
  const until = Date.now() + publishingSettings.attemptLeaseMs;
  for (;;) {
    const progress = { initLeft: false };
    try {
      const prepared = await prepare(deps, post);
      return { prepared, init: await sendInit(deps, post, attempt, prepared, progress) };
    } catch (error) {
      if (progress.initLeft || !isDatabaseUnreachable(error) || Date.now() >= until) throw error;
      await sleep(DATABASE_RETRY_MS);
    }
  }
}

/** Everything checked before an init may leave; a PublishRefusal or an AppError explains a refusal. */
async function prepare(deps: CoreDeps, post: PostDoc): Promise<Prepared> {
  const platform = await deps.db.platforms.findOne({ _id: post.platformId });
  if (!platform || platform.workspaceId !== post.workspaceId) {
    const account = platform ? `${deps.providers.of(platform).name} account` : 'account';
    throw new PublishRefusal(
      `The ${account} of this post is no longer connected to the workspace. Nothing was posted.`,
    );
  }
  const provider = deps.providers.of(platform);
  // A network without replies refuses them at create; a reply that exists anyway is refused here.
  if (post.parentPostId !== null && !provider.publishing.threadReplies) {
    throw new PublishRefusal(`${provider.name} does not support thread replies`);
  }
  const scope: Scope = { workspaceId: post.workspaceId, accountId: post.accountId, actor: { type: 'system' } };
  const loaded = await loadPostMedia(deps, scope, post.mediaIds);
  // Rules as the network applies them to this account now: the account may have changed since the post was queued.
  const { issues } = await provider.rules.checkPost(
    deps,
    platform,
    { content: post.content, settings: post.settings, threadReplies: [] },
    loaded,
    'background',
  );
  if (issues.length > 0) {
    const shown = issues.slice(0, 3).map((issue) => issue.message.replace(/[.]$/, ''));
    throw new PublishRefusal(`${provider.name} would refuse this post now: ${shown.join('; ')}. Nothing was posted.`);
  }
  const kind = provider.publishing.postKind(loaded.media);
  if (!kind) throw new PublishRefusal(`The post has no media ${provider.name} can post. Nothing was posted.`);
  // A deleted media file is among `issues` above (not found), so every media document is here.
  return { platform, provider, kind, media: loaded.docs };
}

/**
 * Sends the init: `init_sent` is written right before the request leaves (so a crash after it is never
 * retried), and the network's answer is recorded. A publish whose bytes follow returns its upload step.
 */
async function sendInit(
  deps: CoreDeps,
  post: PostDoc,
  attempt: PublishAttemptDoc,
  prepared: Prepared,
  progress: { initLeft: boolean },
): Promise<{ publishId: string; upload?: () => Promise<void> }> {
  const markSent = async (detail: string) => {
    // A write whose answer was lost may have landed: init_sent is accepted again from this holder.
    await recordAttempt(deps, attempt, {
      phase: 'init_sent',
      event: { what: 'init_sent', detail },
      leaseMs: publishingSettings.attemptLeaseMs,
      whileHeld: { phases: ['claimed', 'init_sent'] },
    });
    progress.initLeft = true;
  };
  const stillHeld = () =>
    recordAttempt(deps, attempt, { leaseMs: publishingSettings.attemptLeaseMs, whileHeld: { phases: ['claimed'] } });
  try {
    return await prepared.provider.publishing.init(deps, {
      post,
      platform: prepared.platform,
      kind: prepared.kind,
      media: prepared.media,
      markSent,
      stillHeld,
    });
  } catch (error) {
    // The failure itself is what counts: a record that cannot be written (the database away) must not replace it.
    if (!(error instanceof AttemptLost)) {
      await recordAttempt(deps, attempt, { event: { what: 'failed', detail: describeError(error) } }).catch(
        (recordError: unknown) =>
          logFailure(deps.logger, 'warn', recordError, { attempt: attempt._id }, 'recording a failed init failed'),
      );
    }
    throw error;
  }
}

/**
 * Uploads the video's bytes; true when every byte arrived. On a failure the network holds a publish that waits
 * for bytes: when its status shows the bytes incomplete, nothing can be posted from it (ERROR, refunded);
 * otherwise (the last answer may have been lost) the status polling decides.
 */
async function uploaded(
  deps: CoreDeps,
  post: PostDoc,
  attempt: PublishAttemptDoc,
  prepared: Prepared,
  publishId: string,
  upload: () => Promise<void>,
): Promise<boolean> {
  const leaseMs = publishingSettings.attemptLeaseMs;
  try {
    await upload();
  } catch (error) {
    await retryWhileUnreachable(
      () => recordAttempt(deps, attempt, { event: { what: 'upload_failed', detail: describeError(error) } }),
      leaseMs,
    );
    const { provider, platform } = prepared;
    const state = await provider.publishing.advance(deps, platform, publishId).catch(() => null);
    const size = prepared.media[0]?.size ?? 0;
    if (state?.awaitingUploadBytes != null && state.awaitingUploadBytes < size) {
      await failPost(
        deps,
        post,
        `The video upload to ${provider.name} failed (${describeError(error)}). ${provider.name} did not receive the whole video, so nothing was posted; publish again.`,
        { refund: true },
      );
      return false;
    }
    return true;
  }
  await retryWhileUnreachable(
    () => recordAttempt(deps, attempt, { event: { what: 'upload_complete', detail: null } }),
    leaseMs,
  );
  return true;
}

/** Renews the attempt's lease (and the job's lock) while the holder works, so the sweeper leaves it alone. */
function keepAttemptAlive(
  deps: CoreDeps,
  context: Pick<JobContext, 'touch'> | null,
  attempt: Pick<PublishAttemptDoc, '_id'>,
): { stop(): Promise<void> } {
  const leaseMs = publishingSettings.attemptLeaseMs;
  const timer = setInterval(
    () => {
      void (async () => {
        // Never revives a lapsed lease: the sweeper may be settling the attempt by then.
        await recordAttempt(deps, attempt, { leaseMs, whileHeld: {} });
        await context?.touch();
      })().catch((error: unknown) =>
        logFailure(deps.logger, 'warn', error, { attempt: attempt._id }, 'attempt lease renewal failed'),
      );
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await attemptWritesSettled(attempt._id);
    },
  };
}
