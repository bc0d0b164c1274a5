import type { Filter } from 'mongodb';
import type { CoreDeps, Scope } from '../context.js';
import type { PlatformDoc } from '../platforms/documents.js';
import type { PostInsightDoc } from './documents.js';

/** Each of the workspace's accounts' network, by platform id (a workspace has a handful of accounts). */
export async function networksOf(deps: CoreDeps, scope: Scope): Promise<Map<string, PlatformDoc['provider']>> {
  const platforms = await deps.db.platforms
    .find({ workspaceId: scope.workspaceId }, { projection: { provider: 1 } })
    .toArray();
  return new Map(platforms.map((platform) => [platform._id, platform.provider]));
}

/**
 * Narrows insight records to one account (`platformId`) and/or one network (`provider`): with both, the account
 * must be on that network, else nothing matches.
 */
export async function narrowToAccounts(
  deps: CoreDeps,
  scope: Scope,
  filter: Filter<PostInsightDoc>,
  input: { platformId?: string | undefined; provider?: PlatformDoc['provider'] | undefined },
): Promise<void> {
  if (input.provider === undefined) {
    if (input.platformId !== undefined) filter.platformId = input.platformId;
    return;
  }
  const networks = await networksOf(deps, scope);
  const ids = [...networks].filter(([, provider]) => provider === input.provider).map(([id]) => id);
  filter.platformId = { $in: input.platformId === undefined ? ids : ids.filter((id) => id === input.platformId) };
}
