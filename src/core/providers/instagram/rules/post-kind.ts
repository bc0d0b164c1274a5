import type { PostMedia } from '../../port.js';

/** What Postdeck posts to Instagram: a single image, a carousel of 2–10 images and videos, or a Reel. */
export type InstagramPostKind = 'image' | 'carousel' | 'reel';
export const INSTAGRAM_POST_KINDS: readonly InstagramPostKind[] = ['image', 'carousel', 'reel'];

/**
 * The kind the media make: one image is an image post, one video a Reel (Instagram publishes every single
 * video as a Reel), two or more items a carousel (whose item count the rules check). Null without media.
 */
export function instagramPostKind(media: readonly Pick<PostMedia, 'mediaType'>[]): InstagramPostKind | null {
  if (media.length === 0) return null;
  if (media.length > 1) return 'carousel';
  return media[0]!.mediaType === 'video' ? 'reel' : 'image';
}
