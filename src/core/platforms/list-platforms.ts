import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import { platformAnalyticsAccess } from '../providers/tiktok/connect/analytics-access.js';
import type { PlatformDoc } from './documents.js';
import type { PlatformSchema } from './schema.js';

/** A connected account as the API shows it (spec section 2, Platform). */
export type Platform = z.infer<typeof PlatformSchema>;

const PROVIDER_NAMES: Record<PlatformDoc['provider'], string> = { tiktok: 'TikTok' };

/** The workspace's ready-to-post accounts; disabled ones and those needing re-auth are left out. */
export async function listPlatforms(deps: CoreDeps, scope: Scope): Promise<Platform[]> {
  const docs = await deps.db.platforms
    .find({ workspaceId: scope.workspaceId, disabled: false, refreshNeeded: false })
    .sort({ createdAt: 1 })
    .toArray();
  return docs.map(toPlatform);
}

/** Renders a stored platform in the API's shape. */
export function toPlatform(doc: PlatformDoc): Platform {
  return {
    id: doc._id,
    provider: doc.provider,
    providerName: PROVIDER_NAMES[doc.provider],
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
    analytics: platformAnalyticsAccess(doc),
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
    platform: toPlatform(doc),
    state: doc.disabled ? 'disconnected' : doc.refreshNeeded ? 'needs_reconnect' : 'ready',
  }));
}
