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
  /**
   * false: connecting asks only for the publishing scopes (TIKTOK_ANALYTICS=false), for an app without
   * TikTok's Display API product, whose consent request would otherwise fail with `invalid_scope`.
   */
  readonly analytics?: boolean;
}

/** Scopes publishing needs: identity, profile (for the handle), direct post and drafts (contract 1.5). */
export const POSTING_SCOPES: readonly string[] = Object.freeze([
  'user.info.basic',
  'user.info.profile',
  'video.publish',
  'video.upload',
]);

/** The Display API reads behind analytics: a post's numbers (`video.list`) and the account's (`user.info.stats`). */
export const ANALYTICS_SCOPES: readonly string[] = Object.freeze(['video.list', 'user.info.stats']);

/** The scopes a new connection asks for: the publishing ones, and the analytics ones unless turned off. */
export function connectScopes(config: TikTokClientConfig): readonly string[] {
  return config.analytics === false ? POSTING_SCOPES : [...POSTING_SCOPES, ...ANALYTICS_SCOPES];
}
