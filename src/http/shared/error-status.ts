import type { ErrorCode } from '../../core/errors.js';

/** The HTTP status of every error code, in one place (mirrored in docs/decisions.md). */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze({
  invalid_request: 400,
  invalid_media_file: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  invalid_credentials: 401,
  invalid_session: 401,
  post_limit_reached: 402,
  ai_credit_limit_reached: 402,
  ai_image_limit_reached: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  not_a_draft: 409,
  webhook_limit_reached: 409,
  content_blocked: 422,
  idempotency_key_reused: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  provider_error: 502,
  ai_quota_exhausted: 503,
  server_busy: 503,
  shutting_down: 503,
  database_unavailable: 503,
});

/** The code for a bare HTTP error status (thrown by Koa itself), so every body carries a code. */
export function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'invalid_api_key';
  if (status === 403) return 'forbidden';
  if (status === 404 || status === 405) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'invalid_request';
  return 'internal_error';
}
