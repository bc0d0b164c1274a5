import { randomInt } from 'node:crypto';

/**
 * The characters of a user code: RFC 8628 section 6.1's base-20 set, consonants only. No
 * vowels, so no words get spelled; no digits, so nothing is mistaken for a letter (0/O, 1/I/L,
 * 2/Z, 5/S, 8/B). People type codes case-insensitively.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
/**
 * Eight characters: 20^8 ≈ 2.56 × 10^10 codes, 8 × log2(20) ≈ 34.6 bits. Against the guess
 * limits (a few dozen wrong tries per window and user or address) and the 15-minute lifetime,
 * the chance of hitting any one live code stays far below one in a million.
 */
export const USER_CODE_LENGTH = 8;
export const DEFAULT_USER_CODE_PREFIX = 'DECK';

/** A fresh random code: the 8 characters only, as stored. */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** The code as shown to people: `<PREFIX>-XXXX-XXXX`. */
export function formatUserCode(prefix: string, code: string): string {
  return `${prefix}-${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * The 8 code characters of what someone typed: case-insensitive, spaces and dashes optional,
 * the prefix optional (it carries no secret, so it is dropped rather than checked). Null when
 * fewer than 8 characters remain.
 */
export function normalizeUserCode(input: string): string | null {
  const compact = input.toUpperCase().replace(/[\s\-–—]/g, '');
  if (compact.length < USER_CODE_LENGTH || !/^[A-Z0-9]+$/.test(compact)) return null;
  return compact.slice(-USER_CODE_LENGTH);
}

/** How many positions two equally long codes differ in (Infinity for different lengths). */
export function hammingDistance(a: string, b: string): number {
  if (a.length !== b.length) return Infinity;
  let distance = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) distance++;
  return distance;
}
