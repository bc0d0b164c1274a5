import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Encrypts secrets (provider tokens) for storage and decrypts them for use. */
export interface SecretBox {
  /** Encrypts `plain`; the result is a self-describing string safe to store. */
  seal(plain: string): string;
  /** Decrypts what `seal` produced; throws when the value was tampered with or sealed by another key. */
  open(sealed: string): string;
}

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with a fresh 96-bit nonce per value: `v1.<base64url(iv | tag | ciphertext)>`. The
 * version prefix lets a later key rotation tell old values from new ones.
 */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new Error(`the token encryption key must be ${KEY_BYTES} bytes`);
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed) {
      const [version, payload] = sealed.split('.', 2);
      if (version !== VERSION || !payload) throw new Error('not a sealed secret');
      const raw = Buffer.from(payload, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/** A random key of the right size (for a new installation's key file, and tests). */
export function newSecretKey(): Buffer {
  return randomBytes(KEY_BYTES);
}
