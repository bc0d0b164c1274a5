import { z } from 'zod';
import type { CoreDeps, Scope } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { requestFingerprint, type FingerprintedRequest } from '../../core/idempotency/fingerprint.js';
import { IdempotencyKeySchema } from '../../core/idempotency/key.js';
import { runIdempotent, type IdempotentOutcome } from '../../core/idempotency/run.js';
import type { AppContext } from '../shared/context.js';
import { STATUS_BY_CODE } from '../shared/error-status.js';
import { validate } from '../shared/validate.js';

/** Set on a response that repeats a kept outcome instead of executing the request. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

const HeaderSchema = z.object({ 'idempotency-key': IdempotencyKeySchema });

/** The header as the OpenAPI document shows it on routes declared `idempotent`. */
export const IdempotencyHeadersSchema = z.object({
  'Idempotency-Key': IdempotencyKeySchema.optional().describe(
    'Optional, 1–255 printable ASCII characters. The same key and request within 24 hours return the first ' +
      'response (marked `Idempotent-Replayed: true`) without doing anything again; the same key with a ' +
      'different request is 409 idempotency_key_reused. Keys are per workspace.',
  ),
});

/** The errors a keyed request can add: a malformed key, a reused key, a key still in progress after 30 s. */
export const IDEMPOTENCY_ERRORS = ['invalid_request', 'idempotency_key_reused', 'conflict'] as const;

/** The request's Idempotency-Key, checked (400 `invalid_request` when malformed); undefined when absent. */
export function readIdempotencyKey(ctx: AppContext): string | undefined {
  const raw = ctx.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  return validate(HeaderSchema, { 'idempotency-key': raw }, 'headers')['idempotency-key'];
}

/**
 * Answers a keyed request: `run` (the route's handler) executes at most once per workspace and
 * key, and every request with that key and the same inputs gets the same status and the same
 * body bytes. Successes and client errors are kept; 5xx, rate limits and crashes are not, so a
 * retry executes again. `run` gets the key's seed to put in the scope (`Scope.idempotencySeed`).
 */
export async function respondIdempotently(
  deps: CoreDeps,
  ctx: AppContext,
  scope: Scope,
  key: string,
  request: FingerprintedRequest,
  successStatus: number,
  run: (seed: string) => Promise<unknown>,
): Promise<void> {
  const fingerprint = requestFingerprint(request);
  const { outcome, replayed } = await runIdempotent(deps, scope, { key, fingerprint }, async (seed) => {
    try {
      const result = await run(seed);
      const body = successStatus === 204 ? null : (JSON.stringify(result) ?? null);
      return { type: 'success', status: successStatus, body } satisfies IdempotentOutcome;
    } catch (error) {
      if (!isKeptError(error)) throw error;
      const { code, message, details } = error;
      return { type: 'error', code, message, details: details ?? null } satisfies IdempotentOutcome;
    }
  });
  if (replayed) ctx.set(REPLAYED_HEADER, 'true');
  // The first answer is rendered from the kept outcome too, so replays match it byte for byte.
  if (outcome.type === 'error') throw new AppError(outcome.code, outcome.message, outcome.details ?? undefined);
  ctx.status = outcome.status;
  if (outcome.body !== null) {
    ctx.type = 'application/json';
    ctx.body = outcome.body;
  }
}

/** A client error is the request's lasting answer; a 5xx or a rate limit is not and must not stick to the key. */
function isKeptError(error: unknown): error is AppError {
  if (!(error instanceof AppError) || error.retryAfterSeconds !== undefined) return false;
  const status = STATUS_BY_CODE[error.code];
  return status >= 400 && status < 500 && status !== 429;
}
