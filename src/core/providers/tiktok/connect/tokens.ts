import type { CoreDeps } from '../../../context.js';
import type { PlatformTokenDoc } from '../../../platforms/documents.js';
import type { TikTokTokens } from '../oauth.js';

/** A platform's tokens, opened: only ever held in memory, never logged or returned by an endpoint. */
export interface OpenTokens {
  accessToken: string;
  refreshToken: string;
  accessTokenExpiresAt: Date;
  refreshTokenExpiresAt: Date;
  issuedAt: Date;
  scopes: string[];
}

/** Seals and stores a platform's newest tokens (call under the platform's token lease). */
export async function storeTokens(deps: CoreDeps, platformId: string, tokens: TikTokTokens): Promise<OpenTokens> {
  const now = deps.now();
  const doc: PlatformTokenDoc = {
    _id: platformId,
    provider: 'tiktok',
    accessToken: deps.secrets.seal(tokens.accessToken),
    refreshToken: deps.secrets.seal(tokens.refreshToken),
    accessTokenExpiresAt: tokens.accessTokenExpiresAt,
    refreshTokenExpiresAt: tokens.refreshTokenExpiresAt,
    issuedAt: now,
    scopes: tokens.scopes,
    updatedAt: now,
  };
  await deps.db.platformTokens.replaceOne({ _id: platformId }, doc, { upsert: true });
  return { ...tokens, issuedAt: now };
}

/** The platform's stored tokens, opened, or null when it has none (never connected, or disconnected). */
export async function readTokens(deps: CoreDeps, platformId: string): Promise<OpenTokens | null> {
  const doc = await deps.db.platformTokens.findOne({ _id: platformId });
  if (!doc) return null;
  return {
    accessToken: deps.secrets.open(doc.accessToken),
    refreshToken: deps.secrets.open(doc.refreshToken),
    accessTokenExpiresAt: doc.accessTokenExpiresAt,
    refreshTokenExpiresAt: doc.refreshTokenExpiresAt,
    issuedAt: doc.issuedAt,
    scopes: doc.scopes,
  };
}

/** Forgets a platform's tokens (disconnect). */
export async function deleteTokens(deps: CoreDeps, platformId: string): Promise<void> {
  await deps.db.platformTokens.deleteOne({ _id: platformId });
}

/** Longest head start an on-demand refresh takes before the access token expires. */
const MAX_USE_MARGIN_MS = 5 * 60_000;

/**
 * Whether a call should refresh first: the access token expires within a tenth of its own
 * lifetime (at most five minutes), so a call never starts with a token about to die mid-flight.
 */
export function expiresSoon(tokens: OpenTokens, now: Date): boolean {
  const lifetime = tokens.accessTokenExpiresAt.getTime() - tokens.issuedAt.getTime();
  const margin = Math.min(MAX_USE_MARGIN_MS, Math.max(0, lifetime) / 10);
  return tokens.accessTokenExpiresAt.getTime() - now.getTime() <= margin;
}
