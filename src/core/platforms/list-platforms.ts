import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { PlatformDoc } from './documents.js';
import type { PlatformSchema } from './schema.js';

/** A connected account as the API shows it (spec section 2, Platform). */
export type Platform = z.infer<typeof PlatformSchema>;

/** The workspace's ready-to-post accounts; disabled ones and those needing re-auth are left out. */
export async function listPlatforms(deps: CoreDeps, scope: Scope): Promise<Platform[]> {
  const docs = await deps.db.platforms
    .find({ workspaceId: scope.workspaceId, disabled: false, refreshNeeded: false })
    .sort({ createdAt: 1 })
    .toArray();
  return docs.map((doc) => toPlatform(doc, deps.providers));
}

/** Renders a stored platform in the API's shape. */
export function toPlatform(doc: PlatformDoc, providers: ProviderRegistry): Platform {
  const provider = providers.of(doc);
  return {
    id: doc._id,
    provider: doc.provider,
    providerName: provider.name,
    providerAccountId: doc.providerAccountId,
    displayName: doc.displayName,
    displayHandle: doc.displayHandle,
    displayImageUrl: doc.displayImageUrl,
    disabled: doc.disabled,
    refreshNeeded: doc.refreshNeeded,
    tokenExpiresAt: doc.tokenExpiresAt ? doc.tokenExpiresAt.toISOString() : null,
    capabilities: doc.capabilities,
    metadata: doc.metadata,
    settings: doc.settings,
    analytics: provider.accounts.analyticsAccess(doc),
  };
}

/** Where an account stands, as the web app shows it. */
export type PlatformState = 'ready' | 'needs_reconnect' | 'disconnected';

/** One account of the workspace, whatever its state. */
export interface PlatformOverview {
  platform: Platform;
  state: PlatformState;
}

/** Every account of the workspace, disconnected ones and those needing re-auth included (the web page). */
export async function listAllPlatforms(deps: CoreDeps, scope: Scope): Promise<PlatformOverview[]> {
  const docs = await deps.db.platforms.find({ workspaceId: scope.workspaceId }).sort({ createdAt: 1 }).toArray();
  return docs.map((doc) => ({
    platform: toPlatform(doc, deps.providers),
    state: doc.disabled ? 'disconnected' : doc.refreshNeeded ? 'needs_reconnect' : 'ready',
  }));
}
