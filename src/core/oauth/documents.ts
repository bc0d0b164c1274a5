// Stored documents of Postdeck's OAuth 2.1 authorization server (remote MCP clients).

/** How a client proves itself at the token endpoint (RFC 7591 `token_endpoint_auth_method`). */
export type ClientAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

/** A client registered through dynamic client registration (RFC 7591). `_id` is its client_id. */
export interface OAuthClientDoc {
  _id: string;
  clientName: string;
  redirectUris: string[];
  authMethod: ClientAuthMethod;
  /** SHA-256 of the client secret, for confidential clients; public clients (PKCE only) have none. */
  secretHash: string | null;
  createdAt: Date;
}

/**
 * An authorization code a member granted on the consent page. Found by `_id`, the code's
 * SHA-256; the code itself is never stored. Single use: redeeming takes a lease on it.
 */
export interface OAuthCodeDoc {
  _id: string;
  clientId: string;
  redirectUri: string;
  /** The PKCE S256 challenge the token request's verifier must match. */
  codeChallenge: string;
  /** The resource (RFC 8707) the token is for: Postdeck's MCP endpoint. */
  resource: string;
  workspaceId: string;
  accountId: string;
  userId: string;
  /** The key the code was redeemed for; revoked if someone replays the code. */
  keyId: string | null;
  createdAt: Date;
  expiresAt: Date;
}
