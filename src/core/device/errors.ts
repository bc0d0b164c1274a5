/** The RFC 8628 poll answers other than success, rendered as HTTP 400 `{ error }` (spec 4). */
export const DeviceFlowErrors = Object.freeze({
  authorization_pending: 'authorization_pending',
  slow_down: 'slow_down',
  expired_token: 'expired_token',
  access_denied: 'access_denied',
} as const);

export type DeviceFlowErrorCode = keyof typeof DeviceFlowErrors;

/**
 * Thrown by the token poll. Kept apart from AppError because its wire shape is the RFC's
 * `{ error, error_description }`, not the API's `{ code, message }`, and a client must branch on
 * `error` by design; the description is for the person reading a stock client's output.
 */
export class DeviceFlowError extends Error {
  override readonly name = 'DeviceFlowError';

  constructor(
    readonly error: DeviceFlowErrorCode,
    /** RFC 6749 5.2 `error_description`: what happened and what to do, for a person. */
    readonly description: string,
    /** Set when the caller's address is throttled: answered 429 with Retry-After, still `slow_down`. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${error}: ${description}`);
  }
}
