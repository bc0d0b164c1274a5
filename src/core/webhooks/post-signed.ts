import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget } from './address-guard.js';
import { signDelivery } from './signature.js';
import type { WebhookAttempt } from './documents.js';

/** How long a receiver has to answer an attempt. */
const ATTEMPT_TIMEOUT_MS = 15_000;

/**
 * One attempt: checks the address the URL resolves to now (DNS may have changed since registration),
 * then POSTs the body signed as the Standard Webhooks specification says, connecting to that checked
 * address (TLS still verifies the URL's host name). Never throws: the outcome is the attempt.
 */
export async function postSigned(
  target: { url: string; secret: string | readonly string[]; allowPrivate: boolean },
  message: { id: string; body: string },
  at: Date,
): Promise<WebhookAttempt> {
  const url = new URL(target.url);
  const resolved = await resolveTarget(url, target.allowPrivate);
  if (!resolved.ok) return { at, statusCode: null, error: `refused: ${resolved.reason}` };
  const timestamp = Math.floor(at.getTime() / 1000);
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address: resolved.address, family: resolved.family }]);
    else callback(null, resolved.address, resolved.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<WebhookAttempt>((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        timeout: ATTEMPT_TIMEOUT_MS,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Postdeck-Webhooks',
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signDelivery(target.secret, message.id, timestamp, message.body),
        },
      },
      (response) => {
        response.resume(); // the answer's body is not read, only its status
        response.on('end', () => resolve({ at, statusCode: response.statusCode ?? null, error: null }));
        response.on('error', (error) => resolve({ at, statusCode: response.statusCode ?? null, error: error.message }));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`)));
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({
        at,
        statusCode: null,
        error: error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message,
      }),
    );
    request.end(message.body);
  });
}
