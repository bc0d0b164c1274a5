import type { Config } from '../config.js';
import { whyFetchFailed } from './fetch-failure.js';
import type { TikTokClientConfig } from '../core/providers/tiktok/index.js';
import { DEFAULT_EMULATOR_OPTIONS } from '../emulators/tiktok/options.js';

/** The path of the OAuth callback in the web app; the redirect URI registered with TikTok is PUBLIC_URL plus this. */
export const TIKTOK_CALLBACK_PATH = '/platforms/tiktok/callback';

/** Where the built-in emulator answers: the API for server-to-server calls, the consent page for browsers. */
export interface EmulatorHosts {
  apiUrl: string;
  authUrl: string;
  /** The callback the emulator was started for (the running server's), so other processes use the same. */
  redirectUri?: string;
}

/**
 * The TikTok client settings: the configured app and hosts, or, when no credentials are set, the
 * emulator's fixed registration at the hosts of the running emulator (`emulator`, else the one
 * TIKTOK_EMULATOR_URL names).
 */
export function tiktokClientConfig(
  config: Config,
  emulator: EmulatorHosts | undefined = externalTikTokEmulator(config),
): TikTokClientConfig {
  const redirectUri = `${config.publicUrl}${TIKTOK_CALLBACK_PATH}`;
  if (config.tiktok.clientKey && config.tiktok.clientSecret) {
    return {
      authBaseUrl: config.tiktok.authBaseUrl,
      apiBaseUrl: config.tiktok.apiBaseUrl,
      clientKey: config.tiktok.clientKey,
      clientSecret: config.tiktok.clientSecret,
      redirectUri,
      analytics: config.tiktok.analytics,
    };
  }
  return {
    authBaseUrl: emulator?.authUrl ?? config.tiktok.authBaseUrl,
    apiBaseUrl: emulator?.apiUrl ?? config.tiktok.apiBaseUrl,
    clientKey: DEFAULT_EMULATOR_OPTIONS.clientKey,
    clientSecret: DEFAULT_EMULATOR_OPTIONS.clientSecret,
    // An admin command without the server's PORT or PUBLIC_URL still names the server's callback.
    redirectUri: emulator?.redirectUri ?? redirectUri,
    emulator: true,
    analytics: config.tiktok.analytics,
  };
}

/** True when Postdeck talks to a TikTok emulator (built-in or external): no TikTok credentials are configured. */
export function usesTikTokEmulator(config: Config): boolean {
  return !config.tiktok.clientKey;
}

/**
 * The emulator TIKTOK_EMULATOR_URL names, when no credentials are set: one emulator that every
 * process shares (the compose file's service), so none starts its own.
 */
export function externalTikTokEmulator(config: Config): EmulatorHosts | undefined {
  const { url, publicUrl } = config.tiktokEmulator;
  if (!usesTikTokEmulator(config) || !url) return undefined;
  return { apiUrl: url, authUrl: publicUrl ?? url };
}

/** Fails with what to do when the external emulator does not answer (a deployment missing its service). */
export async function requireExternalTikTokEmulator(hosts: EmulatorHosts): Promise<void> {
  const problem = await fetch(`${hosts.apiUrl}/__control/accounts`, { signal: AbortSignal.timeout(5_000) }).then(
    (answer) => (answer.ok ? undefined : `HTTP ${answer.status}`),
    whyFetchFailed,
  );
  if (problem) {
    throw new Error(
      `No TikTok emulator answers at TIKTOK_EMULATOR_URL=${hosts.apiUrl} (${problem}). Start it ` +
        '(docker compose --profile emulator up), or set TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET for the real TikTok.',
    );
  }
}
