import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { AppError } from '../../errors.js';

/** What to do with a failed provider call: try again after `waitMs`, or give up with `error`. */
export type FailureDecision = { retry: true; waitMs: number; error: AppError } | { retry: false; error: AppError };

/**
 * Maps the SDK's errors to outcomes a user can act on (docs/decisions.md, "AI provider"). Messages
 * quote the provider's code and status, never its message text, which can echo the prompt.
 */
export function classifyFailure(error: unknown, attempt: number): FailureDecision {
  const backoffMs = 500 * 2 ** (attempt - 1);
  if (error instanceof APIConnectionTimeoutError) {
    return { retry: true, waitMs: 0, error: new AppError('provider_error', 'The AI provider did not answer in time') };
  }
  if (error instanceof APIConnectionError || !(error instanceof APIError)) {
    return {
      retry: true,
      waitMs: backoffMs,
      error: new AppError('provider_error', 'The AI provider could not be reached'),
    };
  }
  const apiError = error as APIError<number | undefined, Headers | undefined>;
  const { status, code } = apiError;
  if (status === 429 && code === 'insufficient_quota') {
    return {
      retry: false,
      error: new AppError(
        'ai_quota_exhausted',
        "The AI provider's quota for this server is used up (insufficient_quota): its operator must check the provider plan and billing. Nothing was charged.",
      ),
    };
  }
  if (status === 429) {
    const waitMs = retryAfterMs(apiError.headers) ?? backoffMs;
    return {
      retry: true,
      waitMs,
      error: new AppError(
        'rate_limited',
        'The AI provider is rate limiting this server; try again shortly',
        undefined,
        Math.max(1, Math.ceil(waitMs / 1000)),
      ),
    };
  }
  if (status === 400 && code === 'moderation_blocked') {
    return {
      retry: false,
      error: new AppError(
        'content_blocked',
        `The AI provider's safety system rejected the prompt${violations(apiError)}`,
      ),
    };
  }
  if (status === 401 || status === 403) {
    return {
      retry: false,
      error: new AppError(
        'provider_error',
        `The AI provider refused this server's API key (HTTP ${status}); check OPENAI_API_KEY`,
      ),
    };
  }
  if (status !== undefined && status >= 500) {
    return {
      retry: true,
      waitMs: backoffMs,
      error: new AppError('provider_error', `The AI provider failed (HTTP ${status})`),
    };
  }
  return {
    retry: false,
    error: new AppError(
      'provider_error',
      `The AI provider rejected the request (HTTP ${status ?? '?'}${code ? `, ${code}` : ''})`,
    ),
  };
}

/** The wait a 429 asks for, from `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The categories a moderation block names (`safety_violations=[...]`), which say what to change. */
function violations(error: APIError): string {
  const found = /safety_violations=\[([a-z_, -]*)\]/i.exec(error.message);
  return found?.[1] ? ` (flagged: ${found[1]}); change the prompt` : '; change the prompt';
}
