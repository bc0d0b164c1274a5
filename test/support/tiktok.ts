import type { CoreDeps } from '../../src/core/context.js';
import { createLogger } from '../../src/logger.js';
import type { TikTokClientConfig } from '../../src/core/providers/tiktok/config.js';
import { TikTokHttp, type TikTokHttpOptions } from '../../src/core/providers/tiktok/http.js';
import { startTikTokEmulator, type RunningTikTokEmulator } from '../../src/emulators/tiktok/server.js';
import type { EmulatorSettings } from '../../src/emulators/tiktok/options.js';
import { createTikTokProvider } from '../../src/core/providers/tiktok/provider.js';
import { createProviderRegistry } from '../../src/core/providers/registry.js';

/** The redirect URI registered with every test emulator (nothing listens there: redirects are read, not followed). */
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** A running emulator plus a core client pointed at it. */
export interface TikTokFixture {
  emulator: RunningTikTokEmulator;
  http: TikTokHttp;
  config: TikTokClientConfig;
  /** Creates an emulated account through the control API and returns it. */
  createAccount(fields?: Record<string, unknown>): Promise<{ openId: string } & Record<string, unknown>>;
}

/** Starts an emulator on port 0 and a client with fast retries (tests must not wait seconds). */
export async function startTikTokFixture(
  emulatorOptions: EmulatorSettings & { dataFile?: string } = {},
  httpOptions: TikTokHttpOptions = {},
): Promise<TikTokFixture> {
  const emulator = await startTikTokEmulator({
    port: 0,
    host: '127.0.0.1',
    redirectUris: [REDIRECT_URI],
    ...emulatorOptions,
  });
  const config: TikTokClientConfig = {
    authBaseUrl: emulator.url,
    apiBaseUrl: emulator.url,
    clientKey: 'emulator-client-key',
    clientSecret: 'emulator-client-secret',
    redirectUri: REDIRECT_URI,
  };
  const http = new TikTokHttp(config, createLogger({ level: 'silent' }), { baseDelayMs: 5, ...httpOptions });
  const createAccount = async (fields: Record<string, unknown> = {}) => {
    const response = await fetch(`${emulator.url}/__control/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(fields),
    });
    if (response.status !== 201) throw new Error(`control API answered ${response.status}`);
    return (await response.json()) as { openId: string } & Record<string, unknown>;
  };
  return { emulator, http, config, createAccount };
}

/**
 * Plays the user on the consent page: fetches it, takes the form's hidden fields, picks `openId`
 * (or the preselected account) and submits `decision`. Returns the callback URL the browser would visit.
 */
export async function answerConsent(
  authorizeUrl: string,
  options: { openId?: string; decision?: 'authorize' | 'cancel' } = {},
): Promise<URL> {
  const page = await fetch(authorizeUrl);
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}`);
  const html = await page.text();
  const form = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.set(match[1]!, unescape(match[2]!));
  }
  const preselected = /name="open_id" value="([^"]*)" checked/.exec(html)?.[1];
  form.set('open_id', options.openId ?? unescape(preselected ?? ''));
  form.set('decision', options.decision ?? 'authorize');
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(html)![1]!, authorizeUrl);
  const answer = await fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  if (answer.status !== 302) throw new Error(`consent answered ${answer.status}`);
  return new URL(answer.headers.get('location')!);
}

function unescape(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}

/** An emulated user connected with every publishing scope (or `scope`), by raw HTTP (consent page, then the token endpoint). */
export async function connectRaw(
  emulatorUrl: string,
  fields: Record<string, unknown> = {},
  scope = 'user.info.basic,video.publish,video.upload',
): Promise<{ openId: string; token: string; refreshToken: string }> {
  const created = await controlCall(emulatorUrl, 'POST', '/__control/accounts', fields);
  if (created.status !== 201) throw new Error(`control API answered ${created.status}`);
  const { openId } = (await created.json()) as { openId: string };
  const authorize = new URL('/v2/auth/authorize/', emulatorUrl);
  authorize.search = new URLSearchParams({
    client_key: 'emulator-client-key',
    scope,
    redirect_uri: REDIRECT_URI,
    state: 's',
    response_type: 'code',
  }).toString();
  const callback = await answerConsent(authorize.toString(), { openId });
  const response = await fetch(`${emulatorUrl}/v2/oauth/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_key: 'emulator-client-key',
      client_secret: 'emulator-client-secret',
      code: callback.searchParams.get('code') ?? '',
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT_URI,
    }).toString(),
  });
  const tokens = (await response.json()) as { access_token: string; refresh_token: string };
  return { openId, token: tokens.access_token, refreshToken: tokens.refresh_token };
}

/** A JSON call to the emulator's control API. */
export function controlCall(emulatorUrl: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${emulatorUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A raw TikTok API call (POST with a JSON body): the status, the raw text and the parsed body. */
export async function apiCall(
  emulatorUrl: string,
  token: string,
  path: string,
  body: unknown,
): Promise<{ status: number; text: string; json: { data?: Record<string, unknown>; error: { code: string } } }> {
  const response = await fetch(`${emulatorUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as never };
}

/** Polls status/fetch until `done` holds for its data (or `timeoutMs` passes); returns the last answer. */
export async function pollStatus(
  emulatorUrl: string,
  token: string,
  publishId: string,
  done: (data: Record<string, unknown>) => boolean = (d) =>
    d.status !== 'PROCESSING_UPLOAD' && d.status !== 'PROCESSING_DOWNLOAD',
  timeoutMs = 60_000,
): Promise<{ status: number; text: string; data: Record<string, unknown> }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await apiCall(emulatorUrl, token, '/v2/post/publish/status/fetch/', { publish_id: publishId });
    const data = answer.json.data ?? {};
    if (answer.status !== 200 || done(data) || Date.now() > deadline)
      return { status: answer.status, text: answer.text, data };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Ages every stored creator-info read past its reuse window, as if the half minute had passed. */
export async function expireCreatorInfo(deps: CoreDeps): Promise<void> {
  await deps.db.creatorInfo.updateMany({}, { $set: { fetchedAt: new Date(0) } });
}

/** `deps` with its TikTok provider over `http` instead (another client, as another process would have). */
export function withTikTokHttp<D extends CoreDeps>(deps: D, http: TikTokHttp): D {
  return { ...deps, providers: createProviderRegistry([createTikTokProvider(http)]) };
}
