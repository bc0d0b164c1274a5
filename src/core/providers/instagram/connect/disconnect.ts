import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import { TOKEN_LEASE_TTL_MS, underTokenLease } from '../../token-lease.js';

/**
 * Ends an Instagram connection under the account's token lease: forgets the sealed token, then runs `then`.
 * Instagram Login documents no revoke call (a person removes the app in Instagram's settings), so Postdeck
 * only lets go of the token; the page says where to remove the app. Null when the lease stayed busy.
 */
export function disconnectInstagram<T>(
  deps: CoreDeps,
  platform: PlatformDoc,
  then: () => Promise<T>,
): Promise<{ value: T } | null> {
  return underTokenLease(
    deps,
    platform._id,
    async () => {
      await deps.db.platformTokens.deleteOne({ _id: platform._id });
      return then();
    },
    TOKEN_LEASE_TTL_MS + 5_000,
  );
}
