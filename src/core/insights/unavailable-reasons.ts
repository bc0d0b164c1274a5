/**
 * Why TikTok's video query leaves a post out, in words a person can act on. TikTok answers only the creator's
 * own public posts and does not document photo posts there (docs/contracts/tiktok-display-api.md 8.1), so a
 * post it never returned may be a photo post its API does not report, not one made private or removed.
 */
export function unavailableReason(everReturned: boolean): string {
  if (everReturned) {
    return 'TikTok no longer returns this post to its creator: it was made private (Only me) or removed. Its last counts stay.';
  }
  return "TikTok has not returned this post since it was published: it is private (Only me) or removed, or, for a photo post, TikTok's API does not report it.";
}

/** TikTok's privacy levels in the words its app shows them (contract 4.2). */
const PRIVACY_WORDS: Record<string, string> = {
  SELF_ONLY: 'Only me (SELF_ONLY)',
  MUTUAL_FOLLOW_FRIENDS: 'Friends (MUTUAL_FOLLOW_FRIENDS)',
  FOLLOWER_OF_CREATOR: 'Followers (FOLLOWER_OF_CREATOR)',
};

/** The privacy level TikTok counts: its API reads only the creator's public posts (tiktok-display-api.md 8.1). */
export const COUNTED_PRIVACY_LEVEL = 'PUBLIC_TO_EVERYONE';

/**
 * Why a post published with `privacyLevel` is never counted, or null when TikTok counts it. TikTok releases no
 * post id for a post that is not public and its video query answers only public posts, so there is nothing to
 * wait for: the record says so from the start.
 */
export function notCountedReason(privacyLevel: unknown): string | null {
  if (typeof privacyLevel !== 'string' || privacyLevel === COUNTED_PRIVACY_LEVEL) return null;
  const words = PRIVACY_WORDS[privacyLevel] ?? privacyLevel;
  return `TikTok counts only public posts, and this one was published as ${words}: TikTok reports no views, likes, comments or shares for it. Publish with privacy_level PUBLIC_TO_EVERYONE to see numbers.`;
}
