import type { CoreDeps, Scope } from '../context.js';
import { notFound } from '../errors.js';
import type { PlatformDoc } from '../platforms/documents.js';
import type { SlideFrame } from '../providers/port.js';
import type { NetworkPlatforms } from './network-platforms.js';

export type { NetworkPlatforms } from './network-platforms.js';

/** A network's platforms and the frame its slides are drawn in. */
export interface NetworkFrame extends NetworkPlatforms {
  frame: SlideFrame;
}

/**
 * The networks of `platforms`, each once, in the order the platforms first name them: slides are drawn
 * once per network (two accounts of one network share their slides), and the first is the request's own.
 */
export function networksOf(platforms: readonly Pick<PlatformDoc, '_id' | 'provider'>[]): NetworkPlatforms[] {
  const networks: NetworkPlatforms[] = [];
  for (const platform of platforms) {
    const network = networks.find((each) => each.provider === platform.provider);
    if (network) network.platformIds.push(platform._id);
    else networks.push({ provider: platform.provider, platformIds: [platform._id] });
  }
  return networks;
}

/** Each network with the frame its provider declares. */
export function withFrames(deps: CoreDeps, networks: readonly NetworkPlatforms[]): NetworkFrame[] {
  return networks.map((network) => ({ ...network, frame: deps.providers.of(network).frames.slides }));
}

/** The caller's platforms by id, in the order given, as networks with their frames; any other id is not_found. */
export async function loadNetworkFrames(deps: CoreDeps, scope: Scope, platformIds: readonly string[]) {
  const docs = await deps.db.platforms
    .find({ _id: { $in: [...platformIds] }, workspaceId: scope.workspaceId }, { projection: { provider: 1 } })
    .toArray();
  const byId = new Map(docs.map((doc) => [doc._id, doc]));
  const platforms = platformIds.map((id) => {
    const platform = byId.get(id);
    if (!platform) throw notFound(`Platform ${id}`);
    return platform;
  });
  return withFrames(deps, networksOf(platforms));
}
