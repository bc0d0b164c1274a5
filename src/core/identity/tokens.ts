import { createHash, randomBytes } from 'node:crypto';

const TOKEN_BYTES = 32; // 256 bits: guessing is hopeless, so a fast hash is the right store

/** A new opaque bearer secret: `prefix` then 32 random bytes in base64url (43 characters). */
export function newSecretToken(prefix: string): string {
  return `${prefix}${randomBytes(TOKEN_BYTES).toString('base64url')}`;
}

/** True when `token` has the shape `newSecretToken(prefix)` produces; checked before any lookup. */
export function hasSecretTokenShape(token: string, prefix: string): boolean {
  return (
    token.length === prefix.length + 43 &&
    token.startsWith(prefix) &&
    /^[A-Za-z0-9_-]{43}$/.test(token.slice(prefix.length))
  );
}

/**
 * The stored form of a high-entropy secret (session token, invitation token, device code).
 * SHA-256 rather than a slow hash: with 256 random bits there is nothing to brute-force,
 * and lookups by hash stay a single indexed read.
 */
export function hashSecret(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
