import { AppError, type ErrorCode } from '../../errors.js';

/** Where an error came from: the OAuth endpoints (flat body) or the v2 API (envelope). */
export type TikTokErrorSource = 'oauth' | 'api';

/**
 * A failed TikTok call: TikTok's own code (`access_token_invalid`, `invalid_grant`, ...) for callers
 * that branch on it (refresh on `access_token_invalid`, reconnect on `invalid_grant`), the HTTP
 * status, the `log_id` to quote to TikTok support, and the Postdeck code adapters render.
 */
export class TikTokApiError extends AppError {
  constructor(
    readonly tiktokCode: string,
    message: string,
    readonly httpStatus: number,
    readonly source: TikTokErrorSource,
    readonly logId?: string,
    retryAfterSeconds?: number,
  ) {
    const code = postdeckCode(tiktokCode, httpStatus);
    // TikTok sends no Retry-After (contract 3); its window is a sliding minute, so a minute is always enough.
    super(
      code,
      `TikTok: ${tiktokCode}: ${message}`,
      undefined,
      retryAfterSeconds ?? (code === 'rate_limited' ? 60 : undefined),
    );
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
// which a Postdeck client can do nothing about but read the message (502, like a gateway).
function postdeckCode(tiktokCode: string, httpStatus: number): ErrorCode {
  if (tiktokCode === 'rate_limit_exceeded' || httpStatus === 429) return 'rate_limited';
  return 'provider_error';
}
