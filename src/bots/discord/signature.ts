import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** How old a signed timestamp may be (either way): a captured request replayed later is refused. */
export const MAX_CLOCK_SKEW_S = 5 * 60;

/** The application's Ed25519 public key (64 hex digits from the developer portal) as a key object. */
export function interactionKey(publicKeyHex: string): KeyObject {
  const x = Buffer.from(publicKeyHex, 'hex').toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

/**
 * True when Discord signed this request: X-Signature-Ed25519 is its signature over
 * X-Signature-Timestamp followed by the raw body, and the timestamp is within five minutes of now.
 */
export function isSignedByDiscord(
  key: KeyObject,
  headers: { signature: string | undefined; timestamp: string | undefined },
  rawBody: Buffer,
  nowMs: number,
): boolean {
  const { signature, timestamp } = headers;
  if (!signature || !timestamp || !/^[0-9a-f]{128}$/i.test(signature) || !/^\d{1,12}$/.test(timestamp)) return false;
  const signed = verify(null, Buffer.concat([Buffer.from(timestamp), rawBody]), key, Buffer.from(signature, 'hex'));
  return signed && Math.abs(nowMs / 1000 - Number(timestamp)) <= MAX_CLOCK_SKEW_S;
}
