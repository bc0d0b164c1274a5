import type { ErrorCode } from '../../errors.js';
import { ProviderCallError, type InitFailure } from '../provider-errors.js';
import { initRefusalText } from './publish/error-texts.js';

/**
 * Where an error came from: the OAuth endpoints (flat body), the v2 API (envelope), the upload host
 * (chunk PUTs, bare statuses), or Postdeck itself refusing a request before sending it.
 */
export type TikTokErrorSource = 'oauth' | 'api' | 'upload' | 'client';

/**
 * A failed TikTok call: TikTok's own code (`access_token_invalid`, `invalid_grant`, ...) for callers
 * that branch on it (refresh on `access_token_invalid`, reconnect on `invalid_grant`), the HTTP
 * status, the `log_id` to quote to TikTok support, and the Postdeck code adapters render.
 */
export class TikTokApiError extends ProviderCallError {
  constructor(
    readonly tiktokCode: string,
    /** TikTok's message as sent (`message` adds the "TikTok: code:" prefix). */
    readonly tiktokMessage: string,
    readonly httpStatus: number,
    readonly source: TikTokErrorSource,
    readonly logId?: string,
    retryAfterSeconds?: number,
  ) {
    const code = postdeckCode(tiktokCode, httpStatus, source);
    // TikTok sends no Retry-After (contract 3); its window is a sliding minute, so a minute is always enough.
    super(
      code,
      `TikTok: ${tiktokCode}: ${tiktokMessage}`,
      undefined,
      retryAfterSeconds ?? (code === 'rate_limited' ? 60 : undefined),
    );
  }

  get detail(): string {
    const log = this.logId ? ` (log_id ${this.logId})` : '';
    return `HTTP ${this.httpStatus} ${this.tiktokCode}: ${this.tiktokMessage}${log}`;
  }

  /** True when the access token no longer works and a refresh (then a retry) may help. */
  get isAccessTokenInvalid(): boolean {
    return this.tiktokCode === 'access_token_invalid';
  }

  /** True when the authorization itself is gone (bad or rotated refresh token): the user must reconnect. */
  get needsReconnect(): boolean {
    return this.tiktokCode === 'invalid_grant';
  }
}

/** Codes TikTok answers with HTTP 200 from creator_info: the creator cannot post now (contract 4.1). */
export const CANNOT_POST_CODES: ReadonlySet<string> = new Set([
  'spam_risk_too_many_posts',
  'spam_risk_user_banned_from_posting',
  'reached_active_user_cap',
]);

// Only rate limits keep their own meaning for our callers; everything else is TikTok failing us,
// which a Postdeck client can do nothing about but read the message (502, like a gateway). A request
// Postdeck refused itself is the caller's to fix.
function postdeckCode(tiktokCode: string, httpStatus: number, source: TikTokErrorSource): ErrorCode {
  if (source === 'client') return 'invalid_request';
  if (tiktokCode === 'rate_limit_exceeded' || httpStatus === 429) return 'rate_limited';
  return 'provider_error';
}

/** A request Postdeck refuses before sending it (a title too long, a size it cannot split into chunks). */
export function refusedByClient(message: string): TikTokApiError {
  return new TikTokApiError('refused_by_client', message, 0, 'client');
}

/**
 * The 4xx answers of the init endpoints that TikTok documents as refusals (contract 2, 4.2, 4.4, 4.5):
 * code to HTTP status. With these TikTok created nothing, so the same request may be sent again later.
 */
const INIT_REFUSALS: ReadonlyMap<string, number> = new Map([
  ['invalid_param', 400],
  ['invalid_params', 400],
  ['app_version_check_failed', 400],
  ['access_token_invalid', 401],
  ['scope_not_authorized', 401],
  ['spam_risk_too_many_posts', 403],
  ['spam_risk_user_banned_from_posting', 403],
  ['reached_active_user_cap', 403],
  ['unaudited_client_can_only_post_to_private_accounts', 403],
  ['url_ownership_unverified', 403],
  ['privacy_level_option_mismatch', 403],
  ['spam_risk_too_many_pending_share', 403],
]);

/**
 * Whether a failed init (video/init, inbox/video/init, content/init) certainly created nothing.
 * An init is not safe to repeat (each success is a post or a draft), so the caller needs to know:
 *
 * | failure                                                             | createdNothing |
 * | ------------------------------------------------------------------- | -------------- |
 * | refused by Postdeck before sending (validation, chunk planning)     | true           |
 * | no connection could be made (`connection_failed`: refused, DNS)     | true           |
 * | HTTP 429 (any code): TikTok refused the request at its rate limit   | true           |
 * | a documented refusal of INIT_REFUSALS with its documented status    | true           |
 * | network error, timeout (the request may have arrived)               | false          |
 * | 5xx, `internal_error` (TikTok may have created it before failing)   | false          |
 * | 2xx with a missing or malformed `publish_id` / `upload_url`         | false          |
 * | any other status or code (undocumented, so unknown)                 | false          |
 *
 * The client-side limiter never refuses: it waits, so it never produces a failure here.
 */
export function initCreatedNothing(error: TikTokApiError): boolean {
  if (error.source === 'client' || error.tiktokCode === 'connection_failed') return true;
  if (error.httpStatus === 429) return true;
  return INIT_REFUSALS.get(error.tiktokCode) === error.httpStatus;
}

/**
 * A failed init, classified: `createdNothing` is true only when TikTok certainly created no post or
 * draft (see initCreatedNothing), so the caller may send it again; false means it may exist, and the
 * caller must not blindly repeat it.
 */
export class TikTokInitError extends TikTokApiError {
  readonly createdNothing: boolean;

  constructor(from: TikTokApiError) {
    super(from.tiktokCode, from.tiktokMessage, from.httpStatus, from.source, from.logId, from.retryAfterSeconds);
    this.createdNothing = initCreatedNothing(from);
  }

  override get initFailure(): InitFailure {
    const refusalText = initRefusalText(this.tiktokCode, this.tiktokMessage);
    return { createdNothing: this.createdNothing, httpStatus: this.httpStatus, refusalText };
  }
}

/**
 * A failed chunk upload: which chunk, and how many bytes the upload host says it holds when it said
 * so (its `Content-Range` on a 416 or a 206), so the caller can tell a progress mismatch from a failure.
 */
export class TikTokUploadError extends TikTokApiError {
  constructor(
    tiktokCode: string,
    message: string,
    httpStatus: number,
    readonly chunkIndex: number,
    readonly serverUploadedBytes: number | null,
    source: TikTokErrorSource = 'upload',
  ) {
    super(tiktokCode, message, httpStatus, source);
  }
}
