import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import { claimLease, releaseLease } from '../../../db/leases.js';
import { TOKEN_LEASE_POLL_MS, TOKEN_LEASE_TTL_MS, tokenLeaseKey } from '../../token-lease.js';
import { AppError } from '../../../errors.js';
import { TikTokApiError } from '../errors.js';
import { refreshTokens } from '../oauth.js';
import { platformDisconnected, reconnectNeeded } from './platform-errors.js';
import { expiresSoon, readTokens, storeTokens, type OpenTokens } from './tokens.js';
import { tiktokHttpOf } from '../http-of.js';

export { TOKEN_LEASE_TTL_MS, tokenLeaseKey, underTokenLease } from '../../token-lease.js';
const POLL_MS = TOKEN_LEASE_POLL_MS;

/**
 * Calls `fn` with a working access token of `platform`. Refreshes first when the token expires
 * soon; when TikTok still answers `access_token_invalid`, refreshes once and retries `fn` once.
 * Refreshes are single-flight across processes (TikTok rotates the refresh token, so a second
 * refresh with the same token would fail): the loser waits and rereads the stored tokens.
 * Throws `conflict` with a reconnect message when the authorization has ended.
 */
export async function withTikTokToken<T>(
  deps: CoreDeps,
  platform: PlatformDoc,
  fn: (accessToken: string) => Promise<T>,
): Promise<T> {
  if (platform.disabled) throw platformDisconnected(platform);
  if (platform.refreshNeeded) throw reconnectNeeded(platform);
  let tokens = await readTokens(deps, platform._id);
  if (!tokens) throw platformDisconnected(platform);
  if (expiresSoon(tokens, deps.now())) tokens = await refreshAfter(deps, platform, tokens);
  try {
    return await fn(tokens.accessToken);
  } catch (error) {
    if (!(error instanceof TikTokApiError && error.isAccessTokenInvalid)) throw error;
    tokens = await refreshAfter(deps, platform, tokens);
    return fn(tokens.accessToken);
  }
}

/**
 * Tokens newer than `stale`: the ones another caller stored meanwhile, or a refresh of our own
 * under the platform's lease. Waits for a holder at most one lease lifetime.
 */
async function refreshAfter(deps: CoreDeps, platform: PlatformDoc, stale: OpenTokens): Promise<OpenTokens> {
  const deadline = Date.now() + TOKEN_LEASE_TTL_MS + 5_000;
  const isNewer = (t: OpenTokens | null): t is OpenTokens =>
    t !== null && t.accessToken !== stale.accessToken && !expiresSoon(t, deps.now());
  for (;;) {
    const lease = await claimLease(deps.db, tokenLeaseKey(platform._id), { ttlMs: TOKEN_LEASE_TTL_MS });
    if (lease) {
      try {
        const { current, doc } = await reread(deps, platform);
        if (isNewer(current)) return current;
        return await refreshHeld(deps, doc, current);
      } finally {
        await releaseLease(deps.db, lease);
      }
    }
    await sleep(POLL_MS);
    const current = await readTokens(deps, platform._id);
    if (isNewer(current)) return current;
    if (Date.now() > deadline) {
      throw new AppError('provider_error', 'The TikTok token refresh is taking too long; try again in a minute.');
    }
  }
}

/** The platform and its tokens as stored now, refusing a platform that was disconnected or needs reconnecting. */
async function reread(deps: CoreDeps, platform: PlatformDoc): Promise<{ current: OpenTokens; doc: PlatformDoc }> {
  const doc = await deps.db.platforms.findOne({ _id: platform._id });
  if (!doc || doc.disabled) throw platformDisconnected(platform);
  if (doc.refreshNeeded) throw reconnectNeeded(doc);
  const current = await readTokens(deps, platform._id);
  if (!current) throw platformDisconnected(doc);
  return { current, doc };
}

/**
 * Refreshes with the stored refresh token and stores the rotated pair; the caller holds the
 * platform's lease. `invalid_grant` marks the platform `refreshNeeded` (it leaves the list) and
 * throws the reconnect error; other failures (5xx, network) change nothing and are rethrown.
 */
export async function refreshHeld(deps: CoreDeps, platform: PlatformDoc, current: OpenTokens): Promise<OpenTokens> {
  let fresh;
  try {
    fresh = await refreshTokens(tiktokHttpOf(deps), current.refreshToken);
  } catch (error) {
    if (error instanceof TikTokApiError && error.needsReconnect) {
      await deps.db.platforms.updateOne(
        { _id: platform._id },
        { $set: { refreshNeeded: true, updatedAt: deps.now() } },
      );
      deps.logger.warn(
        { platformId: platform._id, tiktokCode: error.tiktokCode, logId: error.logId },
        'tiktok authorization ended; the account needs reconnecting',
      );
      throw reconnectNeeded(platform);
    }
    throw error;
  }
  const stored = await storeTokens(deps, platform._id, fresh);
  await deps.db.platforms.updateOne(
    { _id: platform._id },
    { $set: { tokenExpiresAt: fresh.accessTokenExpiresAt, updatedAt: deps.now() } },
  );
  deps.logger.info(
    { platformId: platform._id, accessTokenExpiresAt: fresh.accessTokenExpiresAt.toISOString() },
    'tiktok tokens refreshed',
  );
  return stored;
}
