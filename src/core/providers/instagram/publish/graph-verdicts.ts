// What Instagram's publishing errors mean for a post (contract 3.2 and 3.3): whether waiting may help, and the
// words a post's errorText shows when it will not.

import type { GraphError } from '../graph.js';

/** Subcodes of failures that pass with time or a new container: Instagram's own faults, media fetches, expiry. */
const TRANSIENT_SUBCODES = new Set([
  2207001, 2207003, 2207006, 2207008, 2207020, 2207027, 2207032, 2207052, 2207053, 2207076, 2207077, 2207082,
]);
/** Codes of throttling (4, 17, 32, 613, 80001–80014), server errors and the container cap (9 without a subcode). */
const TRANSIENT_CODES = new Set([-2, -1, 2, 4, 9, 17, 32, 613]);
/** The spam block: code 4 like throttling, but waiting does not lift it (and after a publish it may be false). */
export const SPAM_BLOCK_SUBCODE = 2207051;

/** Whether a Graph error may pass by itself (the same request later, or a new container, may work). */
export function isTransient(error: GraphError): boolean {
  if (error.subcode === SPAM_BLOCK_SUBCODE) return false;
  if (error.subcode !== null) return TRANSIENT_SUBCODES.has(error.subcode) || error.httpStatus >= 500;
  if (error.code === 1) return true;
  return error.httpStatus >= 500 || TRANSIENT_CODES.has(error.code) || (error.code >= 80001 && error.code <= 80014);
}

/** Whether a container ERROR with this subcode may pass with a new container (a fetch of our media failed). */
export function isTransientSubcode(subcode: number | null): boolean {
  return subcode !== null && TRANSIENT_SUBCODES.has(subcode);
}

/** Plain words for Instagram's refusals of a post's media, caption or account, by subcode. */
const REFUSAL_TEXTS: Readonly<Record<number, string>> = Object.freeze({
  2207004: 'Instagram refused an image: it must be smaller than 8 MiB',
  2207005: 'Instagram refused an image: it takes JPEG images only',
  2207009: "Instagram refused an image's aspect ratio: it takes 4:5 (portrait) to 1.91:1 (landscape)",
  2207010: 'Instagram refused the caption: at most 2,200 characters and its hashtag limit',
  2207040: 'Instagram refused the caption: it names too many @ accounts',
  2207028: 'Instagram refused the carousel: it takes 2 to 10 images or videos',
  2207026:
    'Instagram refused the video: it takes MP4 or MOV (moov atom first), 3 s to 15 min, at most 1920 pixels wide and 300 MB',
  2207057: "Instagram refused the thumbnail offset: it must fall within the video's length",
  2207018: 'Instagram refused a collaborator: name existing accounts by username, without the @',
  2207050: 'Instagram says this account is restricted; check it in the Instagram app',
  [SPAM_BLOCK_SUBCODE]:
    'Instagram refused to publish: it restricts certain activity to protect its community; check the account in the Instagram app',
});

/** The errorText of a post Instagram refused with `error` (nothing was posted). */
export function refusalText(error: GraphError): string {
  return finalText(
    (error.subcode !== null ? REFUSAL_TEXTS[error.subcode] : undefined) ??
      `Instagram refused the post (${error.userMessage ?? error.message}; code ${codeOf(error)})`,
  );
}

/** The errorText of a container Instagram ended in ERROR (its `status` names the subcode). */
export function containerErrorText(subcode: number | null, status: string): string {
  return finalText(
    (subcode !== null ? REFUSAL_TEXTS[subcode] : undefined) ?? `Instagram could not process the media (${status})`,
  );
}

/** `code/subcode` as Meta writes them. */
export function codeOf(error: GraphError): string {
  return error.subcode === null ? String(error.code) : `${error.code}/${error.subcode}`;
}

function finalText(words: string): string {
  return `${words.replace(/[.]$/, '')}. Nothing was posted.`;
}
