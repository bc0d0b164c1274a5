import type { Config } from '../config.js';
import type { TikTokClientConfig } from '../core/providers/tiktok/config.js';
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
 * emulator's fixed registration at the hosts of the running emulator (`emulator`).
 */
export function tiktokClientConfig(config: Config, emulator?: EmulatorHosts): TikTokClientConfig {
  const redirectUri = `${config.publicUrl}${TIKTOK_CALLBACK_PATH}`;
  if (config.tiktok.clientKey && config.tiktok.clientSecret) {
    return {
      authBaseUrl: config.tiktok.authBaseUrl,
      apiBaseUrl: config.tiktok.apiBaseUrl,
      clientKey: config.tiktok.clientKey,
      clientSecret: config.tiktok.clientSecret,
      redirectUri,
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
  };
}

/** True when Postdeck runs its built-in TikTok emulator: no TikTok credentials are configured. */
export function usesTikTokEmulator(config: Config): boolean {
  return !config.tiktok.clientKey;
}
