/** One MiB: Meta's image limit reads "less than 8 MiB". */
const MIB = 1024 * 1024;

/** Instagram's publishing limits (contract 2.4), as Postdeck checks them before accepting a post. */
export const INSTAGRAM_LIMITS = Object.freeze({
  captionMaxChars: 2200,
  maxHashtags: 30,
  maxMentions: 20,
  maxCollaborators: 3,
  carouselMinItems: 2,
  carouselMaxItems: 10,
  imageMimeTypes: ['image/jpeg'] as readonly string[],
  imageMaxBytes: 8 * MIB,
  imageMinWidth: 320,
  imageMaxWidth: 1440,
  /** 4:5 and 1.91:1. */
  minAspect: 0.8,
  maxAspect: 1.91,
  videoMimeTypes: ['video/mp4', 'video/quicktime'] as readonly string[],
  videoMaxBytes: 300 * MIB,
  videoMinSec: 3,
  videoMaxSec: 15 * 60,
  videoMaxWidth: 1920,
});

/** Hashtags as Instagram counts them: `#` then letters, digits or underscores, every occurrence. */
export function hashtagsOf(caption: string): string[] {
  return caption.match(/#[\p{L}\p{N}_]+/gu) ?? [];
}

/** @ mentions: `@` then a handle (letters, digits, `.` and `_`), not inside an e-mail address. */
export function mentionsOf(caption: string): string[] {
  return caption.match(/(?<![\p{L}\p{N}_.])@[\p{L}\p{N}_.]+/gu) ?? [];
}
