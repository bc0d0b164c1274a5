/**
 * The public URL of a TikTok post (contract 6): `/@handle/video/{id}` or `/@handle/photo/{id}`; without an id
 * (withheld by moderation) the profile. Null when the account's handle is unknown.
 */
export function releaseUrlOf(handle: string | null, kind: 'video' | 'photo', releaseId: string | null): string | null {
  if (!handle) return null;
  const profile = `https://www.tiktok.com/@${encodeURIComponent(handle)}`;
  return releaseId === null ? profile : `${profile}/${kind}/${releaseId}`;
}
