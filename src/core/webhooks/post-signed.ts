import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget } from './address-guard.js';
import { categoryOf } from './attempt-errors.js';
import { signDelivery } from './signature.js';
import type { WebhookAttempt } from './documents.js';

/**
 * How long one attempt may take in all: resolving the host, connecting, TLS, sending and the answer's
 * status line and headers. A total, not an idle timeout: a receiver dripping a byte at a time cannot
 * stretch it. The answer's body is never read.
 */
export const ATTEMPT_DEADLINE_MS = 15_000;

/** An attempt, and what the server log (never the delivery log) may say about its failure. */
export interface AttemptOutcome {
  attempt: WebhookAttempt;
  /** The network error's code and text, for a debug line; null when none. */
  detail: string | null;
}

/**
 * One attempt: checks the address the URL resolves to now (DNS may have changed since registration),
 * then POSTs the body signed as the Standard Webhooks specification says, connecting to that checked
 * address (TLS still verifies the URL's host name). Ends as soon as the status is known, or at
 * ATTEMPT_DEADLINE_MS, destroying the socket either way. Never throws: the outcome is the attempt.
 */
export async function postSigned(
  target: { url: string; secret: string | readonly string[]; allowPrivate: boolean },
  message: { id: string; body: string },
  at: Date,
): Promise<AttemptOutcome> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), ATTEMPT_DEADLINE_MS);
  try {
    return await attempt(target, message, at, deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

async function attempt(
  target: { url: string; secret: string | readonly string[]; allowPrivate: boolean },
  message: { id: string; body: string },
  at: Date,
  deadline: AbortSignal,
): Promise<AttemptOutcome> {
  const url = new URL(target.url);
  const timedOut: AttemptOutcome = { attempt: { at, statusCode: null, error: 'timeout' }, detail: 'deadline passed' };
  const resolved = await Promise.race([resolveTarget(url, target.allowPrivate), aborted(deadline)]);
  if (resolved === 'aborted') return timedOut;
  if (!resolved.ok) return { attempt: { at, statusCode: null, error: resolved.failure }, detail: resolved.reason };
  const timestamp = Math.floor(at.getTime() / 1000);
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address: resolved.address, family: resolved.family }]);
    else callback(null, resolved.address, resolved.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptOutcome>((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        signal: deadline,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Postdeck-Webhooks',
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signDelivery(target.secret, message.id, timestamp, message.body),
        },
      },
      (response) => {
        // The status is all an attempt needs: the body is not read, so a receiver cannot hold it open.
        const statusCode = response.statusCode ?? null;
        const accepted = statusCode !== null && statusCode >= 200 && statusCode < 300;
        resolve({ attempt: { at, statusCode, error: accepted ? null : 'http_status' }, detail: null });
        request.destroy();
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (deadline.aborted) resolve(timedOut);
      else resolve({ attempt: { at, statusCode: null, error: categoryOf(error) }, detail: describe(error) });
    });
    request.end(message.body);
  });
}

/** Settles as `aborted` when the signal fires (never rejects). */
function aborted(signal: AbortSignal): Promise<'aborted'> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
}

function describe(error: NodeJS.ErrnoException): string {
  return error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message;
}
