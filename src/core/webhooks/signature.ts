import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret as Standard Webhooks writes it: `whsec_` and 24 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The `webhook-signature` header of the Standard Webhooks specification: for each secret, `v1,` and the
 * base64 HMAC-SHA256, keyed with the secret's bytes, of `<webhook-id>.<webhook-timestamp>.<body>`,
 * space-separated (while a rotated secret's overlap lasts, both sign and a receiver accepts either).
 */
export function signDelivery(
  secrets: string | readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return (typeof secrets === 'string' ? [secrets] : secrets)
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
