import { randomUUID } from 'node:crypto';
import type { CoreDeps } from '../../src/core/context.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { bootstrapTenant, type BootstrapResult } from '../../src/core/tenancy/bootstrap.js';

/** A new account, workspace, owner and API key. */
export async function buildTenant(
  deps: CoreDeps,
  overrides: { name?: string; plan?: string } = {},
): Promise<BootstrapResult> {
  return bootstrapTenant(deps, { workspaceName: overrides.name ?? `ws-${randomUUID()}`, plan: overrides.plan });
}

/** A connected platform in `workspaceId`, stored as the TikTok connection will store it. */
export async function buildPlatform(
  deps: CoreDeps,
  workspaceId: string,
  overrides: Partial<PlatformDoc> = {},
): Promise<PlatformDoc> {
  const now = new Date();
  const doc: PlatformDoc = {
    _id: randomUUID(),
    workspaceId,
    provider: 'tiktok',
    providerAccountId: `open_${randomUUID()}`,
    displayName: 'Test Creator',
    displayHandle: 'testcreator',
    displayImageUrl: null,
    disabled: false,
    refreshNeeded: false,
    tokenExpiresAt: new Date(now.getTime() + 86_400_000),
    capabilities: ['photo', 'video'],
    metadata: {},
    settings: {},
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
  await deps.db.platforms.insertOne(doc);
  return doc;
}
