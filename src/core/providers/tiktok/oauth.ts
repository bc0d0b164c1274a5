import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { connectScopes } from './config.js';
import type { TikTokHttp } from './http.js';

/** The flat token answer (contract 1.2), with lifetimes turned into absolute times. */
export interface TikTokTokens {
  accessToken: string;
  refreshToken: string;
  openId: string;
  /** Granted scopes; the user may grant fewer than were asked for. */
  scopes: string[];
  accessTokenExpiresAt: Date;
  refreshTokenExpiresAt: Date;
}

const TokenSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().int().nonnegative(),
  open_id: z.string().min(1),
  refresh_expires_in: z.coerce.number().int().nonnegative(),
  refresh_token: z.string().min(1),
  scope: z.string(),
  token_type: z.string(),
});

/** A PKCE pair in TikTok's reading: the challenge is the hex SHA-256 of the verifier (contract 1.1). */
export function createPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('hex') };
}

/**
 * The consent-page URL for a new connection. `state` is the caller's single-use CSRF value; PKCE is
 * optional because TikTok requires it only for desktop and mobile apps, not for web (contract 1.1).
 */
export function buildAuthorizeUrl(
  http: TikTokHttp,
  input: { state: string; scopes?: readonly string[]; codeChallenge?: string },
): string {
  const url = new URL('/v2/auth/authorize/', http.config.authBaseUrl);
  url.searchParams.set('client_key', http.config.clientKey);
  url.searchParams.set('scope', (input.scopes ?? connectScopes(http.config)).join(','));
  url.searchParams.set('redirect_uri', http.config.redirectUri);
  url.searchParams.set('state', input.state);
  url.searchParams.set('response_type', 'code');
  if (input.codeChallenge) {
    url.searchParams.set('code_challenge', input.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

/** Redeems an authorization code. Never retried: a code is single use, so a repeat could only fail. */
export async function exchangeCode(http: TikTokHttp, code: string, codeVerifier?: string): Promise<TikTokTokens> {
  const form: Record<string, string> = {
    client_key: http.config.clientKey,
    client_secret: http.config.clientSecret,
    code,
    grant_type: 'authorization_code',
    redirect_uri: http.config.redirectUri,
  };
  if (codeVerifier) form.code_verifier = codeVerifier;
  return toTokens(await http.oauth('/v2/oauth/token/', form, TokenSchema, false));
}

/**
 * Refreshes tokens. The answer carries a new refresh token that replaces the old one (rotation), so
 * the caller must store it; never retried, because a lost answer after rotation cannot be replayed.
 */
export async function refreshTokens(http: TikTokHttp, refreshToken: string): Promise<TikTokTokens> {
  const form = {
    client_key: http.config.clientKey,
    client_secret: http.config.clientSecret,
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  };
  return toTokens(await http.oauth('/v2/oauth/token/', form, TokenSchema, false));
}

/** Revokes an access token (and so the connection). Safe to repeat. */
export async function revokeToken(http: TikTokHttp, accessToken: string): Promise<void> {
  const form = { client_key: http.config.clientKey, client_secret: http.config.clientSecret, token: accessToken };
  await http.oauth('/v2/oauth/revoke/', form, z.object({}).loose(), true);
}

function toTokens(body: z.infer<typeof TokenSchema>): TikTokTokens {
  const now = Date.now();
  return {
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    openId: body.open_id,
    scopes: body.scope.split(',').filter(Boolean),
    // Scheduled from the answer, never a hard-coded lifetime: TikTok's docs disagree on it (contract 1.2).
    accessTokenExpiresAt: new Date(now + body.expires_in * 1000),
    refreshTokenExpiresAt: new Date(now + body.refresh_expires_in * 1000),
  };
}
