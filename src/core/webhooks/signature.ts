import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret as Standard Webhooks writes it: `whsec_` and 24 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The `webhook-signature` header of the Standard Webhooks specification: `v1,` and the base64
 * HMAC-SHA256, keyed with the secret's bytes, of `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export function signDelivery(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
