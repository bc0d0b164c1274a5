/**
 * What the Instagram client needs to know, passed in by the composition root (never read from the environment
 * here), so the same client talks to Instagram or to the local emulator (one base URL then stands for all hosts).
 */
export interface InstagramClientConfig {
  /** The Instagram app id (`client_id`; the Instagram app's, not the Facebook app's). */
  readonly appId: string;
  readonly appSecret: string;
  /** Host of the consent page, e.g. `https://www.instagram.com` (no trailing slash). */
  readonly authBaseUrl: string;
  /** Host of the code exchange, e.g. `https://api.instagram.com`. */
  readonly tokenBaseUrl: string;
  /** Host of the Graph API, e.g. `https://graph.instagram.com`. */
  readonly graphBaseUrl: string;
  /** The Graph version every Graph path carries, e.g. `v25.0`. */
  readonly graphVersion: string;
  /** The registered redirect URI; the code exchange must repeat it exactly. */
  readonly redirectUri: string;
  /** True when the hosts are Postdeck's built-in emulator (no Instagram credentials): pages say so. */
  readonly emulator?: boolean;
}

/** The Graph version Postdeck is written against (v25.0 is supported until 2028-07-29, contract 1.6). */
export const INSTAGRAM_GRAPH_VERSION = 'v25.0';

/** Real Instagram's hosts (contract section 1). */
export const INSTAGRAM_HOSTS = {
  authBaseUrl: 'https://www.instagram.com',
  tokenBaseUrl: 'https://api.instagram.com',
  graphBaseUrl: 'https://graph.instagram.com',
} as const;

/** Scopes a connection asks for: profile, publishing and insights (contract 1.1). */
export const INSTAGRAM_SCOPES: readonly string[] = Object.freeze([
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_insights',
]);
