import { createLogger } from '../../src/logger.js';
import type { TikTokClientConfig } from '../../src/core/providers/tiktok/config.js';
import { TikTokHttp, type TikTokHttpOptions } from '../../src/core/providers/tiktok/http.js';
import { startTikTokEmulator, type RunningTikTokEmulator } from '../../src/emulators/tiktok/server.js';
import type { EmulatorOptions } from '../../src/emulators/tiktok/options.js';

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
  emulatorOptions: Partial<EmulatorOptions> & { dataFile?: string } = {},
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
