import type { CoreDeps, Scope } from '../../src/core/context.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { InstagramClientConfig } from '../../src/core/providers/instagram/config.js';
import { InstagramHttp, type InstagramHttpOptions } from '../../src/core/providers/instagram/graph.js';
import type { ConnectCallback } from '../../src/core/providers/port.js';
import type { InstagramEmulatorSettings } from '../../src/emulators/instagram/options.js';
import { startInstagramEmulator, type RunningInstagramEmulator } from '../../src/emulators/instagram/server.js';
import { createLogger } from '../../src/logger.js';
import type { TestDatabase } from './db.js';

/** The redirect URI registered with every test emulator (nothing listens there: redirects are read, not followed). */
export const INSTAGRAM_REDIRECT_URI = 'http://127.0.0.1:9/platforms/instagram/callback';

/** An emulated Instagram account as the control API answers it. */
export interface EmulatedInstagramAccount {
  id: string;
  userId: string;
  username: string;
  name: string;
  accountType: string;
}

/** A running Instagram emulator plus a client config (and a client) pointed at it. */
export interface InstagramFixture {
  emulator: RunningInstagramEmulator;
  config: InstagramClientConfig;
  http: InstagramHttp;
  /** Creates an emulated account through the control API (a BUSINESS account unless told). */
  createAccount(fields?: Record<string, unknown>): Promise<EmulatedInstagramAccount>;
  /** A JSON call to the control API. */
  control(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/** Starts an Instagram emulator on port 0 (processing times 0 unless told) and a client config for it. */
export async function startInstagramFixture(
  settings: InstagramEmulatorSettings = {},
  httpOptions: InstagramHttpOptions = {},
): Promise<InstagramFixture> {
  const emulator = await startInstagramEmulator({
    port: 0,
    host: '127.0.0.1',
    redirectUris: [INSTAGRAM_REDIRECT_URI],
    imageProcessingMs: 0,
    videoProcessingMs: 0,
    ...settings,
  });
  const config: InstagramClientConfig = {
    appId: 'emulator-instagram-app-id',
    appSecret: 'emulator-instagram-app-secret',
    authBaseUrl: emulator.url,
    tokenBaseUrl: emulator.url,
    graphBaseUrl: emulator.url,
    graphVersion: 'v25.0',
    redirectUri: INSTAGRAM_REDIRECT_URI,
  };
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${emulator.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    emulator,
    config,
    http: new InstagramHttp(config, createLogger({ level: 'silent' }), httpOptions),
    control,
    async createAccount(fields = {}) {
      const answer = await control('POST', '/__control/accounts', fields);
      if (answer.status !== 201) throw new Error(`control API answered ${answer.status}: ${await answer.text()}`);
      return (await answer.json()) as EmulatedInstagramAccount;
    },
    close: () => emulator.close(),
  };
}

/**
 * Plays the person on the emulator's consent page: fetches it, picks `accountId`, presses Allow (or Cancel);
 * answers the callback URL the browser would visit.
 */
export async function answerInstagramConsent(
  authorizeUrl: string,
  accountId: string,
  decision: 'allow' | 'cancel' = 'allow',
): Promise<URL> {
  const page = await fetch(authorizeUrl);
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}`);
  const html = await page.text();
  if (!html.includes(`value="${accountId}"`)) throw new Error(`the consent page does not offer ${accountId}`);
  const form = new URLSearchParams(new URL(authorizeUrl).search);
  form.set('account_id', accountId);
  form.set('decision', decision);
  const answer = await fetch(new URL('/oauth/authorize', authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  if (answer.status !== 302) throw new Error(`consent answered ${answer.status}`);
  return new URL(answer.headers.get('location')!);
}

/** The callback query as core takes it (the `#_` fragment never reaches a server). */
export function instagramCallbackFrom(url: URL): ConnectCallback {
  const q = url.searchParams;
  return {
    state: q.get('state') ?? '',
    code: q.get('code') ?? undefined,
    error: q.get('error') ?? undefined,
    errorDescription: q.get('error_description') ?? undefined,
  };
}

/** Runs the whole connection through core (state, consent page, callback) for `accountId`; answers the outcome. */
export async function connectThroughConsent(deps: CoreDeps, scope: Scope, accountId: string, binding = 'session:test') {
  const provider = deps.providers.of({ provider: 'instagram' });
  const started = await provider.connect.start(deps, scope, { binding });
  const callback = await answerInstagramConsent(started.authorizeUrl, accountId);
  return provider.connect.complete(deps, instagramCallbackFrom(callback), binding);
}

/**
 * A connected Instagram platform in `tenant`'s workspace, through the real connect code path against the
 * emulator (`t` must be opened with `instagram: fixture.config`). `fields` shape the emulated account.
 */
export async function connectedInstagram(
  t: TestDatabase,
  fixture: InstagramFixture,
  tenant: { workspaceId: string; accountId: string },
  fields: Record<string, unknown> = {},
): Promise<{ platform: PlatformDoc; account: EmulatedInstagramAccount }> {
  const account = await fixture.createAccount(fields);
  const scope: Scope = { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' } };
  const result = await connectThroughConsent(t.deps, scope, account.id);
  if (result.outcome !== 'connected') throw new Error(`connection ${result.outcome}: ${result.description}`);
  return { platform: result.platform, account };
}
