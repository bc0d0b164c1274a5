import { z } from 'zod';
import type { CoreDeps } from '../context.js';
import { claimLease } from '../db/leases.js';
import { defineJob } from '../jobs/define-job.js';
import { defineJobHandle } from '../jobs/job-handle.js';
import type { WebhookDeliveryDoc } from './documents.js';
import { postSigned, type AttemptOutcome } from './post-signed.js';
import { signingSecrets } from './rotation.js';
import { takeSendSlot } from './send-slots.js';

/** Retries stop this long after the first attempt (or the last redelivery). */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
/** The longest wait between two attempts. */
const MAX_RETRY_DELAY_MS = 2 * 3_600_000;
/** How long an attempt waits for its workspace or receiver host to have a free place (send-slots.ts). */
const BUSY_WAIT_MS = 1_000;
/**
 * How long one sender holds an attempt: well past an attempt's own deadline (post-signed.ts, 15 s), so
 * two workers never send the same attempt at once, yet short enough that an attempt whose sender died
 * mid-send (its due task runs again once the task's claim lapses) is sent again rather than lost.
 */
export const SEND_LEASE_MS = 60_000;
/** Attempts kept in a delivery's log. */
const MAX_KEPT_ATTEMPTS = 20;

/**
 * One attempt of one delivery: `attempt` is the number it makes (1 for the first), so a task queued twice
 * for the same attempt, or made stale by a redelivery, sends nothing. On the due-task lane as `outbound`
 * work, in a pool of its own: a webhook never holds a due post or the event relay (chat cards) back.
 */
export const sendWebhookHandle = defineJobHandle({
  name: 'webhooks.send',
  data: z.object({ deliveryId: z.string().min(1), attempt: z.int().min(1) }),
  queue: 'due-tasks',
  priority: 'outbound',
});

export const sendWebhookJob = defineJob({
  ...sendWebhookHandle,
  // A receiver's failure is retried by the delivery's own backoff; this retries database failures only.
  retry: { maxRetries: 5, delayMs: 5_000, maxDelayMs: 60_000 },
  perform: ({ deliveryId, attempt }, { deps }) => sendDelivery(deps, deliveryId, attempt),
});

/** Queues attempt `attempt` of a delivery at `runAt`. */
export function queueAttempt(deps: CoreDeps, deliveryId: string, attempt: number, runAt: Date): Promise<string> {
  return deps.jobs.enqueue(sendWebhookHandle, { deliveryId, attempt }, { runAt });
}

/**
 * Makes attempt `attempt` of a delivery, unless it is settled or another attempt came first. A delivery
 * waits (without an attempt) while an earlier event of the same post or job to the same endpoint is still
 * pending, so a receiver sees a post's events in order. A failure is retried with exponential backoff
 * until RETRY_WINDOW_MS has passed since the window started; then the delivery is failed.
 */
export async function sendDelivery(deps: CoreDeps, deliveryId: string, attempt: number): Promise<void> {
  const delivery = await deps.db.webhookDeliveries.findOne({ _id: deliveryId });
  if (!delivery || delivery.state !== 'pending' || delivery.attempts + 1 !== attempt) return;
  const endpoint = await deps.db.webhookEndpoints.findOne({
    _id: delivery.endpointId,
    workspaceId: delivery.workspaceId,
  });
  if (!endpoint) {
    await deps.db.webhookDeliveries.deleteOne({ _id: deliveryId });
    return;
  }
  const now = deps.now();
  const earlier = await deps.db.webhookDeliveries.findOne(
    {
      endpointId: delivery.endpointId,
      subjectId: delivery.subjectId,
      state: 'pending',
      eventAt: { $lt: delivery.eventAt },
    },
    { sort: { eventAt: 1 } },
  );
  if (earlier) {
    const after = Math.max(now.getTime() + deps.webhooks.retryBaseMs, (earlier.nextAttemptAt ?? now).getTime() + 1_000);
    await deps.db.webhookDeliveries.updateOne({ _id: deliveryId }, { $set: { nextAttemptAt: new Date(after) } });
    await queueAttempt(deps, deliveryId, attempt, new Date(after));
    return;
  }
  // A workspace or receiver host with its attempts in flight here waits its turn off the send pool.
  const release = takeSendSlot(delivery.workspaceId, new URL(endpoint.url).hostname);
  if (!release) {
    await queueAttempt(deps, deliveryId, attempt, new Date(now.getTime() + BUSY_WAIT_MS));
    return;
  }
  try {
    // One sender per attempt across workers (a redelivery and the retry it replaced may both fire). While
    // another holds it, look again once its hold ends: if that sender died, the attempt is still owed.
    if (!(await claimLease(deps.db, `webhook:${deliveryId}#${attempt}`, { ttlMs: SEND_LEASE_MS }))) {
      await queueAttempt(deps, deliveryId, attempt, new Date(now.getTime() + SEND_LEASE_MS));
      return;
    }
    const outcome = await postSigned(
      { url: endpoint.url, secret: signingSecrets(deps, endpoint, now), allowPrivate: deps.webhooks.allowPrivate },
      { id: deliveryId, body: delivery.body },
      now,
    );
    await recordAttempt(deps, delivery, attempt, outcome);
  } finally {
    release();
  }
}

async function recordAttempt(
  deps: CoreDeps,
  delivery: WebhookDeliveryDoc,
  attempt: number,
  { attempt: outcome, detail }: AttemptOutcome,
): Promise<void> {
  const succeeded = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const delay = Math.min(deps.webhooks.retryBaseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
  const next = new Date(outcome.at.getTime() + delay);
  const retries = !succeeded && next.getTime() <= delivery.windowStart.getTime() + RETRY_WINDOW_MS;
  const updated = await deps.db.webhookDeliveries.updateOne(
    { _id: delivery._id, attempts: attempt - 1 },
    {
      $set: {
        attempts: attempt,
        state: succeeded ? 'delivered' : retries ? 'pending' : 'failed',
        nextAttemptAt: retries ? next : null,
        history: [...delivery.history, outcome].slice(-MAX_KEPT_ATTEMPTS),
      },
    },
  );
  if (updated.matchedCount === 0) return; // a redelivery moved it on meanwhile
  const statusClass = outcome.statusCode === null ? 'none' : `${Math.floor(outcome.statusCode / 100)}xx`;
  deps.metrics.webhookAttempt(delivery.type, succeeded ? 'delivered' : retries ? 'failed' : 'gave_up', statusClass);
  if (succeeded)
    deps.metrics.webhookDelivered(delivery.type, (outcome.at.getTime() - delivery.eventAt.getTime()) / 1000);
  if (detail !== null) {
    // The error's text stays out of the delivery log (attempt-errors.ts); the operator may see it.
    deps.logger.debug(
      { deliveryId: delivery._id, endpointId: delivery.endpointId, attempt, detail },
      'webhook attempt error',
    );
  }
  if (!succeeded) {
    deps.logger.info(
      {
        deliveryId: delivery._id,
        endpointId: delivery.endpointId,
        attempt,
        statusCode: outcome.statusCode,
        error: outcome.error,
        retries,
      },
      retries ? 'a webhook delivery failed; it will be retried' : 'a webhook delivery failed for good',
    );
  }
  if (retries) await queueAttempt(deps, delivery._id, attempt + 1, next);
}
