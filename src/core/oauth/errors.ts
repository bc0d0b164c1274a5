/**
 * An OAuth protocol error (RFC 6749 5.2, RFC 7591 3.2.2), rendered as `{ error, error_description }`.
 * Kept apart from AppError because OAuth clients branch on these codes by the RFCs' names.
 */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';

  constructor(
    readonly error:
      | 'invalid_request'
      | 'invalid_client'
      | 'invalid_grant'
      | 'unsupported_grant_type'
      | 'invalid_target'
      | 'invalid_redirect_uri'
      | 'invalid_client_metadata',
    readonly description: string,
    /** 401 for a client that failed to authenticate, else 400. */
    readonly status: 400 | 401 = 400,
  ) {
    super(description);
  }
}
