import type { CoreDeps } from '../../../context.js';
import type { PlatformTokenDoc } from '../../../platforms/documents.js';

/** An Instagram account's long-lived token, opened: only ever held in memory, never logged or returned. */
export interface InstagramToken {
  accessToken: string;
  expiresAt: Date;
  /** When Instagram issued it: a token may be refreshed only once it is 24 h old (contract 1.4). */
  issuedAt: Date;
  scopes: string[];
}

/**
 * Seals and stores an account's newest token (call under the platform's token lease). Instagram has no refresh
 * token (the long-lived token refreshes itself), so the document's refresh fields repeat the access token's.
 */
export async function storeInstagramToken(
  deps: CoreDeps,
  platformId: string,
  token: InstagramToken,
): Promise<InstagramToken> {
  const sealed = deps.secrets.seal(token.accessToken);
  const doc: PlatformTokenDoc = {
    _id: platformId,
    provider: 'instagram',
    accessToken: sealed,
    refreshToken: sealed,
    accessTokenExpiresAt: token.expiresAt,
    refreshTokenExpiresAt: token.expiresAt,
    issuedAt: token.issuedAt,
    scopes: token.scopes,
    updatedAt: deps.now(),
  };
  await deps.db.platformTokens.replaceOne({ _id: platformId }, doc, { upsert: true });
  return token;
}

/** The account's stored token, opened, or null when it has none (never connected, or disconnected). */
export async function readInstagramToken(deps: CoreDeps, platformId: string): Promise<InstagramToken | null> {
  const doc = await deps.db.platformTokens.findOne({ _id: platformId });
  if (!doc) return null;
  return {
    accessToken: deps.secrets.open(doc.accessToken),
    expiresAt: doc.accessTokenExpiresAt,
    issuedAt: doc.issuedAt,
    scopes: doc.scopes,
  };
}
