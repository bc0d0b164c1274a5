import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../errors.js';

/** Password length bounds: long enough to matter, short enough that hashing stays cheap. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

/**
 * A hash of a password nobody has, made with the same parameters as real hashes. Sign-in
 * verifies against it for unknown emails so that "no such user" takes as long as "wrong password".
 */
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$s4KNld+6YfeeiOPMZqammA$afxJqlSkePq04E0an22nrgeOoNoEN2X9NvFyhAZB+vE';

/**
 * Hashes a password with argon2id (the library's default algorithm) at the library's default
 * cost: 19 MiB of memory, 2 passes, 1 lane, which is OWASP's baseline recommendation.
 */
export async function hashPassword(password: string): Promise<string> {
  assertPasswordRules(password);
  return hash(password);
}

/** True when `password` matches `passwordHash`; a null hash (no password set) never matches. */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (password.length > PASSWORD_MAX_LENGTH) return false;
  // Always run one verification, so the time taken says nothing about whether the user exists.
  const matches = await verify(passwordHash ?? DUMMY_HASH, password).catch(() => false);
  return passwordHash !== null && matches;
}

/** Throws `invalid_request` with details when the password breaks the length rules. */
export function assertPasswordRules(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new AppError(
      'invalid_request',
      `The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`,
      [{ path: ['password'], message: `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters` }],
    );
  }
}
