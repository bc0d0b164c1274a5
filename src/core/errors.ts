import type { Logger } from '../logger.js';
import { isDatabaseUnreachable, logFailure } from './db/unreachable.js';

/**
 * Stable, machine-readable error codes. Clients branch on these, never on message text,
 * and each adapter maps them once (HTTP status table, MCP isError results, bot replies).
 */
export const ErrorCodes = Object.freeze({
  invalid_request: 'invalid_request',
  missing_api_key: 'missing_api_key',
  invalid_api_key: 'invalid_api_key',
  invalid_credentials: 'invalid_credentials',
  invalid_session: 'invalid_session',
  forbidden: 'forbidden',
  not_found: 'not_found',
  conflict: 'conflict',
  not_a_draft: 'not_a_draft',
  idempotency_key_reused: 'idempotency_key_reused',
  post_limit_reached: 'post_limit_reached',
  ai_credit_limit_reached: 'ai_credit_limit_reached',
  ai_image_limit_reached: 'ai_image_limit_reached',
  webhook_limit_reached: 'webhook_limit_reached',
  ai_quota_exhausted: 'ai_quota_exhausted',
  content_blocked: 'content_blocked',
  invalid_media_file: 'invalid_media_file',
  payload_too_large: 'payload_too_large',
  unsupported_media_type: 'unsupported_media_type',
  rate_limited: 'rate_limited',
  provider_error: 'provider_error',
  server_busy: 'server_busy',
  shutting_down: 'shutting_down',
  database_unavailable: 'database_unavailable',
  internal_error: 'internal_error',
} as const);

export type ErrorCode = keyof typeof ErrorCodes;

/** One validation problem: where in the operation's input, and what is wrong there. */
export interface IssueDetail {
  path: (string | number)[];
  message: string;
  /**
   * Set when the path names what is already stored (a draft's own settings), not the input: adapters
   * show such a path as it is. Dropped by `relocateIssues`, so clients never see it.
   */
  stored?: true;
}

/** The one error family core throws; adapters render `code`, `message` and `details`. */
export class AppError extends Error {
  override readonly name = 'AppError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: IssueDetail[],
    /** Seconds a client should wait before retrying (rate limits). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** What every surface tells a caller about a failure that is not theirs to fix; the cause stays in the log. */
export const INTERNAL_ERROR_MESSAGE = 'Something went wrong on our side; try again in a moment';

/** Seconds a caller is asked to wait when the database is away (a restart or failover takes seconds). */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * An error as callers may see it: an AppError as it is; a failure because the database cannot be
 * reached becomes database_unavailable (503, worth retrying; the outage is logged once by the database
 * watch); anything else is logged once here, at error level with its stack (`what` failed, with
 * `fields`), and becomes internal_error, so no internal text reaches a caller.
 */
export function toAppError(
  error: unknown,
  logger: Logger,
  what: string,
  fields: Record<string, unknown> = {},
): AppError {
  if (error instanceof AppError) return error;
  logFailure(logger, 'error', error, fields, `${what} failed`);
  if (isDatabaseUnreachable(error)) {
    return new AppError(
      'database_unavailable',
      'Postdeck cannot reach its database right now; try again in a few seconds',
      undefined,
      DATABASE_RETRY_AFTER_SECONDS,
    );
  }
  return new AppError('internal_error', INTERNAL_ERROR_MESSAGE);
}

/** The invalid_request error for validation issues, each named in the message too. */
export function invalidRequest(details: IssueDetail[]): AppError {
  const summary = details.map((d) => `${d.path.join('.')}: ${d.message}`).join('; ');
  return new AppError('invalid_request', `The request is not valid (${summary})`, details);
}

/**
 * Rewrites input-relative issue paths into an adapter's terms (REST puts `body`, `query` or `params`
 * in front); paths about stored data stay as they are. Every adapter renders issues through this.
 */
export function relocateIssues(
  details: readonly IssueDetail[],
  relocate: (path: IssueDetail['path']) => IssueDetail['path'],
): IssueDetail[] {
  return details.map(({ stored, ...detail }) => (stored ? detail : { ...detail, path: relocate(detail.path) }));
}

/** Shorthand for the not-found answer used for missing ids and other workspaces' ids alike. */
export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} not found`);
}

/** True for the driver's duplicate-key error, which the atomic primitives rely on. */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 11000;
}
