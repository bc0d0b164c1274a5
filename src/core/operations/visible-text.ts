import type { z } from 'zod';

/**
 * One character that shows: anything but controls, white space and the characters Unicode calls
 * default-ignorable (zero-width spaces and joiners, soft hyphen, byte order mark, bidi controls,
 * variation selectors, Hangul fillers), plus the blank braille pattern. Written as explicit ranges
 * without flags, so the JSON Schema `pattern` it becomes means the same in every regex dialect.
 */
export const VISIBLE_CHARACTER =
  /[^\u0000-\u0020\u007f-\u00a0\u00ad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8]/;

/** True when `text` has at least one character a reader would see. */
export function hasVisibleCharacter(text: string): boolean {
  return VISIBLE_CHARACTER.test(text);
}

/**
 * Requires `schema`'s text to show something (`what` names it in the message: "the caption"). It
 * replaces a minimum length of 1, and the JSON Schema states it as a `pattern`.
 */
export function requireVisible<Schema extends z.ZodString>(schema: Schema, what: string): Schema {
  return schema.regex(VISIBLE_CHARACTER, { error: `${what} has no visible characters` });
}
