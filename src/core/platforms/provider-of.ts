import type { CoreDeps } from '../context.js';
import type { ProviderId } from './documents.js';

/**
 * The network of a post's account, for the surfaces that name it (metrics, audit, webhooks); null when the
 * platform document is gone. Scoped to the post's workspace like every other read.
 */
export async function providerOfPlatform(
  deps: CoreDeps,
  workspaceId: string,
  platformId: string,
): Promise<ProviderId | null> {
  const platform = await deps.db.platforms.findOne({ _id: platformId, workspaceId }, { projection: { provider: 1 } });
  return platform?.provider ?? null;
}
