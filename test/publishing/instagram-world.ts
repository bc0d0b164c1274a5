import { randomUUID } from 'node:crypto';
import type { Scope } from '../../src/core/context.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { tunePublishing } from '../../src/core/publishing/settings.js';
import type { BootstrapResult } from '../../src/core/tenancy/bootstrap.js';
import type { InstagramEmulatorSettings } from '../../src/emulators/instagram/options.js';
import type { Fault, Media } from '../../src/emulators/instagram/state.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import {
  connectedInstagram,
  startInstagramFixture,
  type EmulatedInstagramAccount,
  type InstagramFixture,
} from '../support/instagram.js';
import { freePort } from '../support/spawn.js';
import { systemScope } from '../platforms/support.js';
import { FAST, queuePost } from './support.js';

/**
 * A worker on a test database publishing to the Instagram emulator, and the HTTP app serving the public media
 * URLs the emulator fetches (PUBLIC_BASE_URL = the app's loopback address).
 */
export interface InstagramWorld {
  ig: InstagramFixture;
  t: TestDatabase;
  server: TestServer;
  tenant: BootstrapResult;
  scope: Scope;
  close(): Promise<void>;
}

/** `database`: more settings for the world's database (webhooks, plans). */
export async function startInstagramWorld(
  settings: InstagramEmulatorSettings = {},
  database: Omit<Parameters<typeof openTestDatabase>[0] & object, 'instagram' | 'media'> = {},
): Promise<InstagramWorld> {
  const restore = tunePublishing(FAST);
  const port = await freePort();
  const ig = await startInstagramFixture(settings);
  const publicBaseUrl = `http://127.0.0.1:${port}`;
  const t = await openTestDatabase({ ...database, instagram: ig.config, media: { publicBaseUrl } });
  const server = await startTestServer(t, { port });
  await t.startWorker();
  const tenant = await buildTenant(t.deps);
  return {
    ig,
    t,
    server,
    tenant,
    scope: systemScope(tenant),
    async close() {
      await t.close();
      await server.stop();
      await ig.close();
      restore();
    },
  };
}

/** A connected Instagram business account (its own emulated user) and its platform. */
export function connectInstagram(
  w: InstagramWorld,
): Promise<{ platform: PlatformDoc; account: EmulatedInstagramAccount }> {
  return connectedInstagram(w.t, w.ig, w.tenant, { username: `brand.${randomUUID().slice(0, 8)}` });
}

/** The account's published media at the emulator (carousel children are not counted), oldest first. */
export function publishedMedia(w: InstagramWorld, account: EmulatedInstagramAccount): Media[] {
  return [...w.ig.emulator.control.media.values()]
    .filter((m) => m.accountId === account.id && m.parentId === null)
    .sort((a, b) => a.publishedAt - b.publishedAt);
}

/** Queues a fault for the account's next calls of an endpoint (control API). */
export async function injectFault(
  w: InstagramWorld,
  account: EmulatedInstagramAccount,
  fault: Partial<Fault> & Pick<Fault, 'endpoint'>,
): Promise<void> {
  const answer = await w.ig.control('POST', `/__control/accounts/${account.id}/faults`, fault);
  if (answer.status !== 201) throw new Error(`fault refused: ${answer.status} ${await answer.text()}`);
}

/** Changes the emulator's settings (processing times, quota) for every account. */
export async function emulatorSettings(w: InstagramWorld, settings: InstagramEmulatorSettings): Promise<void> {
  const answer = await w.ig.control('PATCH', '/__control/settings', settings);
  if (!answer.ok) throw new Error(`settings refused: ${answer.status} ${await answer.text()}`);
}

/** Queues an Instagram post as queuePost does, without TikTok's settings (Instagram refuses keys it does not take). */
export function queueInstagramPost(
  w: InstagramWorld,
  platform: PlatformDoc,
  media: Parameters<typeof queuePost>[2],
  overrides: Parameters<typeof queuePost>[3] = {},
) {
  return queuePost(w, platform, media, { settings: {}, ...overrides });
}
