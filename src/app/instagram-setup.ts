import type { Config } from '../config.js';
import {
  INSTAGRAM_GRAPH_VERSION,
  INSTAGRAM_HOSTS,
  type InstagramClientConfig,
} from '../core/providers/instagram/index.js';
import { DEFAULT_INSTAGRAM_OPTIONS } from '../emulators/instagram/options.js';
import type { RecordedHosts } from './emulator-record.js';

/** The path of Instagram's OAuth callback in the web app; the redirect URI registered with Meta is PUBLIC_URL plus this. */
export const INSTAGRAM_CALLBACK_PATH = '/platforms/instagram/callback';

/** True when Postdeck talks to the Instagram emulator: no Instagram app is configured. */
export function usesInstagramEmulator(config: Config): boolean {
  return !config.instagram.appId;
}

/** The emulator INSTAGRAM_EMULATOR_URL names (one every process shares), when no Instagram app is configured. */
export function externalInstagramEmulator(config: Config): RecordedHosts | undefined {
  const url = config.instagram.emulatorUrl;
  return usesInstagramEmulator(config) && url ? { apiUrl: url, authUrl: url } : undefined;
}

/**
 * The Instagram client settings: the configured app at Instagram's hosts, or, without one, the emulator's fixed
 * registration at the running emulator's address (one base URL stands for all three of Instagram's hosts).
 */
export function instagramClientConfig(
  config: Config,
  emulator: RecordedHosts | undefined = externalInstagramEmulator(config),
): InstagramClientConfig {
  const redirectUri = `${config.publicUrl}${INSTAGRAM_CALLBACK_PATH}`;
  if (config.instagram.appId && config.instagram.appSecret) {
    return {
      ...INSTAGRAM_HOSTS,
      appId: config.instagram.appId,
      appSecret: config.instagram.appSecret,
      graphVersion: INSTAGRAM_GRAPH_VERSION,
      redirectUri,
    };
  }
  // No emulator found (an admin command with none running): a closed port, so calls fail plainly.
  const apiUrl = emulator?.apiUrl ?? 'http://127.0.0.1:9';
  return {
    appId: DEFAULT_INSTAGRAM_OPTIONS.appId,
    appSecret: DEFAULT_INSTAGRAM_OPTIONS.appSecret,
    authBaseUrl: emulator?.authUrl ?? apiUrl,
    tokenBaseUrl: apiUrl,
    graphBaseUrl: apiUrl,
    graphVersion: INSTAGRAM_GRAPH_VERSION,
    redirectUri: emulator?.redirectUri ?? redirectUri,
    emulator: true,
  };
}
