import { recordAudit } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import type { PlatformDoc } from './documents.js';
import { AppError } from '../errors.js';
import { TikTokApiError } from '../providers/tiktok/errors.js';
import { revokeToken } from '../providers/tiktok/oauth.js';
import { findWorkspacePlatform } from './find-platform.js';
import { refreshHeld, TOKEN_LEASE_TTL_MS, underTokenLease } from '../providers/tiktok/connect/token-access.js';
import { deleteTokens, readTokens, type OpenTokens } from '../providers/tiktok/connect/tokens.js';
import { forgetCreatorInfo } from '../providers/tiktok/rules/creator-info-cache.js';

/**
 * Disconnects an account: revokes the grant at TikTok, forgets the sealed tokens and marks the
 * platform disabled (it leaves the list; connecting the same account again revives the record).
 * A revoke that fails (token already dead, TikTok down) is logged and the disconnect goes on:
 * the person asked for the account to be gone from Postdeck, and that always happens.
 */
export async function disconnectPlatform(deps: CoreDeps, scope: Scope, platformId: string): Promise<PlatformDoc> {
  const platform = await findWorkspacePlatform(deps, scope, platformId);
  const done = await underTokenLease(
    deps,
    platform._id,
    async () => {
      const tokens = await readTokens(deps, platform._id);
      if (tokens) await revokeGrant(deps, platform, tokens);
      await deleteTokens(deps, platform._id);
      await forgetCreatorInfo(deps, platform._id);
      const changes = { disabled: true, tokenExpiresAt: null, updatedAt: deps.now() };
      await deps.db.platforms.updateOne({ _id: platform._id }, { $set: changes });
      deps.logger.info({ platformId: platform._id, workspaceId: scope.workspaceId }, 'tiktok account disconnected');
      await recordAudit(deps, scope, {
        action: 'platform.disconnected',
        subject: { type: 'platform', id: platform._id },
        details: { handle: platform.displayHandle },
        // An account may be connected and disconnected again: each time is its own entry.
        occurrence: String(changes.updatedAt.getTime()),
      });
      return { ...platform, ...changes };
    },
    TOKEN_LEASE_TTL_MS + 5_000,
  );
  if (!done) throw new AppError('provider_error', 'The account is busy refreshing its tokens; try again in a minute.');
  return done.value;
}

// Revoke takes the access token; an expired one may not be accepted, so it is refreshed first
// while the refresh token still lives (the caller holds the lease refreshHeld needs).
async function revokeGrant(deps: CoreDeps, platform: PlatformDoc, tokens: OpenTokens): Promise<void> {
  let accessToken = tokens.accessToken;
  const now = deps.now();
  try {
    if (tokens.accessTokenExpiresAt <= now && tokens.refreshTokenExpiresAt > now && !platform.refreshNeeded) {
      accessToken = (await refreshHeld(deps, platform, tokens)).accessToken;
    }
    await revokeToken(deps.tiktok, accessToken);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const tiktok = error instanceof TikTokApiError ? { tiktokCode: error.tiktokCode, logId: error.logId } : {};
    deps.logger.warn(
      { platformId: platform._id, code: error.code, ...tiktok },
      'tiktok revoke failed; disconnecting anyway',
    );
  }
}
