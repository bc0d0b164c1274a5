import type { GraphErrorSpec } from './graph-error.js';
import type { InstagramEmulatorOptions } from './options.js';

/** Hashtags as Instagram counts them: `#` then letters, digits or underscores (every occurrence). */
export function hashtagsOf(caption: string): string[] {
  return caption.match(/#[\p{L}\p{N}_]+/gu) ?? [];
}

/** @ mentions: `@` then a handle (letters, digits, `.` and `_`), not inside an e-mail address. */
export function mentionsOf(caption: string): string[] {
  return caption.match(/(?<![\p{L}\p{N}_.])@[\p{L}\p{N}_.]+/gu) ?? [];
}

/**
 * The caption limits (contract 2.4): characters (36004 / 2207010), hashtags (the same code, as the caption
 * is what is refused) and @ tags (100 / 2207040). Characters are counted as code points.
 */
export function captionRefusal(caption: string, options: InstagramEmulatorOptions): GraphErrorSpec | undefined {
  const length = [...caption].length;
  if (length > options.maxCaptionChars) {
    return {
      code: 36004,
      subcode: 2207010,
      message: `The submitted image's caption was ${length} characters long. The maximum number of characters permitted for a caption is ${options.maxCaptionChars}.`,
    };
  }
  const hashtags = hashtagsOf(caption).length;
  if (hashtags > options.maxHashtags) {
    return {
      code: 36004,
      subcode: 2207010,
      message: `The submitted caption has ${hashtags} hashtags. The maximum number of hashtags permitted is ${options.maxHashtags}.`,
    };
  }
  const mentions = mentionsOf(caption).length;
  if (mentions > options.maxMentions) {
    return {
      code: 100,
      subcode: 2207040,
      message: `Cannot use more than ${options.maxMentions} tags per created media.`,
    };
  }
  return undefined;
}

/**
 * The collaborators parameter (contract 2.2): a JSON array of usernames, at most 3, none with a leading `@`
 * (110 / 2207018).
 */
export function collaboratorsRefusal(raw: string, options: InstagramEmulatorOptions): GraphErrorSpec | undefined {
  let names: unknown;
  try {
    names = JSON.parse(raw);
  } catch {
    return { code: 100, message: '(#100) Param collaborators must be a JSON array of usernames.' };
  }
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string' || n.length === 0)) {
    return { code: 100, message: '(#100) Param collaborators must be a JSON array of usernames.' };
  }
  if (names.length > options.maxCollaborators) {
    return { code: 100, message: `(#100) Param collaborators can name at most ${options.maxCollaborators} users.` };
  }
  const bad = (names as string[]).find((n) => n.startsWith('@'));
  if (bad) return { code: 110, subcode: 2207018, message: `Invalid collaborator username: ${bad}` };
  return undefined;
}
