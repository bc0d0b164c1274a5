import type { TikTokClientConfig } from '../config.js';

/** Where TikTok shows posts and profiles to people. */
const TIKTOK_WEB = 'https://www.tiktok.com';

/**
 * The host of the public post pages: TikTok's own, or, against Postdeck's emulator (no TikTok
 * credentials), the emulator's, which serves them beside its consent page. A link to tiktok.com
 * would name an account that exists only in the emulator.
 */
export function postPagesBaseUrl(config: TikTokClientConfig): string {
  return config.emulator ? config.authBaseUrl : TIKTOK_WEB;
}

/** The words of a link to a published post: the emulator's page is not TikTok, and says so. */
export function releaseLinkLabel(emulator: boolean): string {
  return emulator ? 'View in the TikTok emulator' : 'View on TikTok';
}

/**
 * The public URL of a TikTok post (contract 6): `/@handle/video/{id}` or `/@handle/photo/{id}`; without an id
 * (withheld by moderation) the profile. Null when the account's handle is unknown.
 */
export function releaseUrlOf(
  baseUrl: string,
  handle: string | null,
  kind: 'video' | 'photo',
  releaseId: string | null,
): string | null {
  if (!handle) return null;
  const profile = `${baseUrl}/@${encodeURIComponent(handle)}`;
  return releaseId === null ? profile : `${profile}/${kind}/${releaseId}`;
}
