import { z } from 'zod';

/**
 * The characters `String.prototype.trim` removes (JavaScript's `\s`), spelled out so that a
 * JSON Schema validator in any language reads the pattern below the same way.
 */
const SPACE_CLASS = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** Matches text with at least one character that trimming keeps. */
export const NOT_BLANK = new RegExp(`[^${SPACE_CLASS}]`);

/**
 * A text field stored trimmed. Its limits apply to what was sent, so the schema states them all:
 * at most `max` characters, and (the pattern) at least one that is not a space. Only then are the
 * spaces around it dropped. (Checking after trimming let `"a"` and 300 spaces through a limit of
 * 255 and refused `"\u000b"` for being empty, neither of which a schema-reading client can know.)
 */
export function trimmedText(max: number): z.ZodString {
  return z
    .string()
    .min(1, { abort: true })
    .max(max)
    .regex(NOT_BLANK, { message: 'must have a character other than spaces' })
    .trim();
}
