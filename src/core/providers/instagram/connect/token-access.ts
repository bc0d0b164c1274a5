import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import { GraphError } from '../graph-errors.js';
import { platformDisconnected, reconnectNeeded } from './platform-errors.js';
import { readInstagramToken } from './tokens.js';

/**
 * Calls `fn` with the working token of an Instagram account; the professional account id for Graph paths is
 * `platform.providerAccountId`. Instagram's token cannot be renewed once dead (a refresh needs a live token), so
 * an expired token, or code 190 from Instagram, marks the account `refreshNeeded` and throws the reconnect
 * error, unless the upkeep stored a newer token meanwhile, with which `fn` is tried once more.
 */
export async function withInstagramToken<T>(
  deps: CoreDeps,
  platform: PlatformDoc,
  fn: (accessToken: string) => Promise<T>,
): Promise<T> {
  if (platform.disabled) throw platformDisconnected(platform);
  if (platform.refreshNeeded) throw reconnectNeeded(platform);
  const token = await readInstagramToken(deps, platform._id);
  if (!token) throw platformDisconnected(platform);
  if (token.expiresAt <= deps.now()) throw await authorizationEnded(deps, platform, 'expired');
  try {
    return await fn(token.accessToken);
  } catch (error) {
    if (!(error instanceof GraphError && error.tokenDead)) throw error;
    const current = await readInstagramToken(deps, platform._id);
    if (current && current.accessToken !== token.accessToken) return fn(current.accessToken);
    throw await authorizationEnded(deps, platform, error.detail);
  }
}

/** Marks the account as needing a new login and answers the error that says so. */
export async function authorizationEnded(deps: CoreDeps, platform: PlatformDoc, why: string): Promise<Error> {
  await deps.db.platforms.updateOne({ _id: platform._id }, { $set: { refreshNeeded: true, updatedAt: deps.now() } });
  deps.logger.warn({ platformId: platform._id, why }, 'instagram authorization ended; the account needs reconnecting');
  return reconnectNeeded(platform);
}
