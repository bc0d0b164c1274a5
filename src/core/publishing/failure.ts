import type { CoreDeps } from '../context.js';
import type { PostDoc } from '../posts/documents.js';
import type { PublishAttemptDoc } from './documents.js';
import { AppError } from '../errors.js';
import { ProviderCallError } from '../providers/provider-errors.js';
import { attemptId, recordAttempt } from './attempts.js';
import { OUTCOME_UNKNOWN_TEXT } from './error-texts.js';
import { failPost, requeuePost } from './post-outcome.js';
import { enqueuePostPublish } from './schedule.js';
import { publishingSettings, retryDelayMs } from './settings.js';

/** A reason the engine will not send a post, found before anything left for the network (final, refunded). */
export class PublishRefusal extends Error {
  constructor(readonly errorText: string) {
    super(errorText);
  }
}

/**
 * The network will not take the post before `retryAt` (a quota used up) and created nothing: the post waits in
 * QUEUE until then, saying why, and the wait uses up no attempt. `reason` is one sentence without the time.
 */
export class PublishHold extends Error {
  constructor(
    readonly reason: string,
    readonly retryAt: Date,
  ) {
    super(reason);
  }
}

/** What a failed attempt means for the post. */
export type AttemptVerdict =
  /** The network certainly created nothing and trying later may work: a new attempt after `delayMs`. */
  | { kind: 'retry'; delayMs: number; rateLimited: boolean; reason: string }
  /** The network certainly created nothing and trying again would fail the same way: ERROR, cap refunded. */
  | { kind: 'refused'; errorText: string; reason: string }
  /** The init may have reached the network: ERROR "outcome unknown", never sent again, not refunded. */
  | { kind: 'unknown'; reason: string }
  /** The network certainly created nothing and will not take the post before `retryAt`: QUEUE until then. */
  | { kind: 'hold'; retryAt: Date; reason: string };

// Postdeck errors that will not go away by waiting: the account, the media or the request itself.
const FINAL_APP_CODES = new Set(['conflict', 'invalid_media_file', 'invalid_request', 'not_found']);

/**
 * Classifies a failure of the steps up to and including the init (contract 4.2/4.4; errors.ts tells
 * whether the network created nothing). Anything that is not an init's own failure happened before an init
 * could create something (a 401 creates nothing, so a failed refresh after it counts too).
 */
export function judgeFailure(error: unknown, nextN: number): AttemptVerdict {
  const reason = describeError(error);
  if (error instanceof PublishRefusal) return { kind: 'refused', errorText: error.errorText, reason };
  if (error instanceof PublishHold) return { kind: 'hold', retryAt: error.retryAt, reason };
  const init = error instanceof ProviderCallError ? error.initFailure : null;
  if (init) {
    if (!init.createdNothing) return { kind: 'unknown', reason };
    if (init.httpStatus === 429) {
      return {
        kind: 'retry',
        delayMs: Math.max(retryDelayMs(nextN), publishingSettings.rateLimitedDelayMs),
        rateLimited: true,
        reason,
      };
    }
    return { kind: 'refused', errorText: init.refusalText, reason };
  }
  if (error instanceof AppError && !(error instanceof ProviderCallError) && FINAL_APP_CODES.has(error.code)) {
    return { kind: 'refused', errorText: finalText(error.message), reason };
  }
  const rateLimited = error instanceof AppError && error.code === 'rate_limited';
  const delayMs = rateLimited
    ? Math.max(retryDelayMs(nextN), publishingSettings.rateLimitedDelayMs)
    : retryDelayMs(nextN);
  return { kind: 'retry', delayMs, rateLimited, reason };
}

/**
 * Ends attempt #n by its verdict: a retry puts the post back in QUEUE for attempt #n+1 (or ends it in ERROR
 * once maxAttempts created nothing); a refusal or an unknown outcome ends the post in ERROR.
 */
export async function settleFailedAttempt(
  deps: CoreDeps,
  post: PostDoc,
  attempt: Pick<PublishAttemptDoc, '_id' | 'n'>,
  verdict: AttemptVerdict,
): Promise<void> {
  deps.logger.warn(
    { postId: post._id, attempt: attempt.n, verdict: verdict.kind, reason: verdict.reason },
    'publish attempt failed',
  );
  if (verdict.kind === 'unknown') {
    await recordAttempt(deps, attempt, {
      phase: 'outcome_unknown',
      event: { what: 'outcome_unknown', detail: verdict.reason },
    });
    await failPost(deps, post, OUTCOME_UNKNOWN_TEXT, { refund: false });
    return;
  }
  if (verdict.kind === 'hold') return holdAttempt(deps, post, attempt, verdict);
  await recordAttempt(deps, attempt, {
    phase: 'created_nothing',
    event: { what: 'created_nothing', detail: verdict.reason },
  });
  if (verdict.kind === 'refused') {
    await failPost(deps, post, verdict.errorText, { refund: true });
    return;
  }
  await retryOrGiveUp(deps, post, attempt.n, verdict);
}

/**
 * Ends attempt #n as held (it created nothing) and puts the post back in QUEUE until `retryAt`, its errorText
 * saying why and until when.
 */
export async function holdAttempt(
  deps: CoreDeps,
  post: PostDoc,
  attempt: Pick<PublishAttemptDoc, '_id' | 'n'>,
  hold: { retryAt: Date; reason: string },
): Promise<void> {
  const until = hold.retryAt.toISOString().replace(/\.\d+Z$/, 'Z');
  await recordAttempt(deps, attempt, {
    phase: 'held',
    event: { what: 'held', detail: `${hold.reason} (until ${until})` },
  });
  const text = `Held: ${hold.reason.replace(/[.]$/, '')}. Nothing was posted yet; Postdeck tries again at ${until}.`;
  if (await requeuePost(deps, post, hold.retryAt, text))
    await enqueuePostPublish(deps, { _id: post._id, dueAt: hold.retryAt });
}

/** After attempt #n created nothing: attempt #n+1 later, or ERROR (refunded) when the attempts are used up. */
export async function retryOrGiveUp(
  deps: CoreDeps,
  post: PostDoc,
  n: number,
  verdict: { delayMs: number; rateLimited: boolean; reason: string },
): Promise<void> {
  const used = n >= publishingSettings.maxAttempts ? await attemptsUsed(deps, post._id, n) : 0;
  if (used >= publishingSettings.maxAttempts) {
    const platform = await deps.db.platforms.findOne({ _id: post.platformId });
    const network = platform ? deps.providers.of(platform).name : 'the network';
    const text = verdict.rateLimited
      ? `${network} kept refusing this account's posts at its rate limit (${used} attempts); nothing was posted. Publish again later.`
      : `Publishing failed ${used} times before ${network} received the post (last: ${verdict.reason}); nothing was posted. Publish again later.`;
    await failPost(deps, post, text, { refund: true });
    return;
  }
  const dueAt = new Date(deps.now().getTime() + verdict.delayMs);
  if (await requeuePost(deps, post, dueAt)) await enqueuePostPublish(deps, { _id: post._id, dueAt });
}

/** How many of attempts #1..n count against maxAttempts: a hold uses up none (read by `_id`, only near the limit). */
export async function attemptsUsed(deps: CoreDeps, postId: string, n: number): Promise<number> {
  let used = 0;
  for (let i = 1; i <= n; i += 1) {
    const attempt = await deps.db.publishAttempts.findOne({ _id: attemptId(postId, i) });
    if (attempt?.phase !== 'held') used += 1;
  }
  return used;
}

/** A failure as an event detail: the network's code, HTTP status, message and log id (never a token). */
export function describeError(error: unknown): string {
  if (error instanceof ProviderCallError) return error.detail;
  if (error instanceof PublishRefusal) return error.errorText;
  return error instanceof Error ? error.message : String(error);
}

function finalText(message: string): string {
  const sentence = /[.!?]$/.test(message) ? message : `${message}.`;
  return `${sentence} Nothing was posted.`;
}
