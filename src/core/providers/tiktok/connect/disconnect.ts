import type { CoreDeps } from '../../../context.js';
import { AppError } from '../../../errors.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import { TikTokApiError } from '../errors.js';
import { tiktokHttpOf } from '../http-of.js';
import { revokeToken } from '../oauth.js';
import { forgetCreatorInfo } from '../rules/creator-info-cache.js';
import { refreshHeld, TOKEN_LEASE_TTL_MS, underTokenLease } from './token-access.js';
import { deleteTokens, readTokens, type OpenTokens } from './tokens.js';

/**
 * Ends a TikTok connection under the account's token lease: revokes the grant at TikTok, forgets the sealed
 * tokens and the cached creator info, then runs `then` (the platform's own change) under the same lease.
 * A revoke that fails (token already dead, TikTok down) is logged and the disconnect goes on: the person
 * asked for the account to be gone from Postdeck, and that always happens. Null when the lease stayed busy.
 */
export function disconnectTikTok<T>(
  deps: CoreDeps,
  platform: PlatformDoc,
  then: () => Promise<T>,
): Promise<{ value: T } | null> {
  return underTokenLease(
    deps,
    platform._id,
    async () => {
      const tokens = await readTokens(deps, platform._id);
      if (tokens) await revokeGrant(deps, platform, tokens);
      await deleteTokens(deps, platform._id);
      await forgetCreatorInfo(deps, platform._id);
      return then();
    },
    TOKEN_LEASE_TTL_MS + 5_000,
  );
}

async function revokeGrant(deps: CoreDeps, platform: PlatformDoc, tokens: OpenTokens): Promise<void> {
  let accessToken = tokens.accessToken;
  const now = deps.now();
  try {
    if (tokens.accessTokenExpiresAt <= now && tokens.refreshTokenExpiresAt > now && !platform.refreshNeeded) {
      accessToken = (await refreshHeld(deps, platform, tokens)).accessToken;
    }
    await revokeToken(tiktokHttpOf(deps), accessToken);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const tiktok = error instanceof TikTokApiError ? { tiktokCode: error.tiktokCode, logId: error.logId } : {};
    deps.logger.warn(
      { platformId: platform._id, code: error.code, ...tiktok },
      'tiktok revoke failed; disconnecting anyway',
    );
  }
}
