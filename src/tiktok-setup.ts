import type { Config } from './config.js';
import type { TikTokClientConfig } from './core/providers/tiktok/config.js';
import { DEFAULT_EMULATOR_OPTIONS } from './emulators/tiktok/options.js';

/** The path of the OAuth callback in the web app; the redirect URI registered with TikTok is PUBLIC_URL plus this. */
export const TIKTOK_CALLBACK_PATH = '/platforms/tiktok/callback';

/**
 * The TikTok client settings: the configured app, or the local emulator's fixed registration when no
 * credentials are set (then the base URLs must point at an emulator).
 */
export function tiktokClientConfig(config: Config): TikTokClientConfig {
  return {
    authBaseUrl: config.tiktok.authBaseUrl,
    apiBaseUrl: config.tiktok.apiBaseUrl,
    clientKey: config.tiktok.clientKey ?? DEFAULT_EMULATOR_OPTIONS.clientKey,
    clientSecret: config.tiktok.clientSecret ?? DEFAULT_EMULATOR_OPTIONS.clientSecret,
    redirectUri: `${config.publicUrl}${TIKTOK_CALLBACK_PATH}`,
  };
}
