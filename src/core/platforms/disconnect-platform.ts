import { recordAudit } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import type { PlatformDoc } from './documents.js';
import { AppError } from '../errors.js';
import { findWorkspacePlatform } from './find-platform.js';

/**
 * Disconnects an account: its provider revokes the grant and forgets the tokens, and the platform is marked
 * disabled (it leaves the list; connecting the same account again revives the record). A failed revoke does
 * not stop it: the person asked for the account to be gone from Postdeck, and that always happens.
 */
export async function disconnectPlatform(deps: CoreDeps, scope: Scope, platformId: string): Promise<PlatformDoc> {
  const platform = await findWorkspacePlatform(deps, scope, platformId);
  const provider = deps.providers.of(platform);
  const done = await provider.accounts.disconnect(deps, platform, async () => {
    const changes = { disabled: true, tokenExpiresAt: null, updatedAt: deps.now() };
    await deps.db.platforms.updateOne({ _id: platform._id }, { $set: changes });
    deps.logger.info(
      { platformId: platform._id, workspaceId: scope.workspaceId },
      `${provider.id} account disconnected`,
    );
    await recordAudit(deps, scope, {
      action: 'platform.disconnected',
      subject: { type: 'platform', id: platform._id },
      details: { provider: platform.provider, handle: platform.displayHandle },
      occurrence: String(changes.updatedAt.getTime()),
    });
    return { ...platform, ...changes };
  });
  if (!done) throw new AppError('provider_error', 'The account is busy refreshing its tokens; try again in a minute.');
  return done.value;
}
