/**
 * What the TikTok client needs to know, passed in by the composition root (never read from the
 * environment here), so the same client talks to TikTok or to the local emulator.
 */
export interface TikTokClientConfig {
  /** Host of the consent page, e.g. `https://www.tiktok.com` (no trailing slash). */
  readonly authBaseUrl: string;
  /** Host of the API, e.g. `https://open.tiktokapis.com` (no trailing slash). */
  readonly apiBaseUrl: string;
  readonly clientKey: string;
  readonly clientSecret: string;
  /** The registered redirect URI; the token exchange must repeat it exactly. */
  readonly redirectUri: string;
  /** True when the hosts are Postdeck's built-in emulator (no TikTok credentials): pages say so. */
  readonly emulator?: boolean;
}

/**
 * Scopes Postdeck asks for: identity, profile (for the handle), direct post and drafts (contract 1.5), and the
 * Display API reads behind analytics: a post's numbers and the account's (contract 8).
 */
export const DEFAULT_SCOPES: readonly string[] = Object.freeze([
  'user.info.basic',
  'user.info.profile',
  'video.publish',
  'video.upload',
  'video.list',
  'user.info.stats',
]);
