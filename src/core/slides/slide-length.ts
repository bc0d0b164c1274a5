import { z } from 'zod';

export const SlideLengthSchema = z.enum(['short', 'medium', 'long']);
export type SlideLength = z.infer<typeof SlideLengthSchema>;

/**
 * The longest caption per slide length, in width units (a wide CJK character counts 2): what fits
 * on a 9:16 slide inside the safe zone at medium size without shrinking (short, medium), or
 * shrunk at most one step (long). docs/decisions.md, "AI slides".
 */
export const SLIDE_LENGTH_LIMITS: Readonly<Record<SlideLength, number>> = Object.freeze({
  short: 60,
  medium: 120,
  long: 200,
});

/** The composite limit of spec 4: no caption is ever longer. */
export const MAX_CAPTION_CHARS = 500;

// East Asian Wide and Fullwidth ranges: Hangul Jamo, CJK, kana, Hangul syllables, compatibility and fullwidth forms.
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;

/** A caption's width in units: wide (CJK) characters count 2, others 1. */
export function captionWidth(text: string): number {
  let width = 0;
  for (const char of text) width += WIDE.test(char) ? 2 : 1;
  return width;
}
