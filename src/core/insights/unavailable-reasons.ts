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
