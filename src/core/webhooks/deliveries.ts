import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import { AppError } from '../errors.js';
import { shownError } from './attempt-errors.js';
import type { WebhookDeliveryDoc } from './documents.js';
import { findWebhook } from './endpoints.js';
import type { WebhookDeliverySchema } from './schema.js';
import { queueAttempt } from './send-job.js';

type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/** The endpoint's newest deliveries, newest first. */
export async function listDeliveries(
  deps: CoreDeps,
  scope: Scope,
  input: { id: string; limit: number },
): Promise<{ deliveries: WebhookDelivery[] }> {
  const endpoint = await findWebhook(deps, scope, input.id);
  const docs = await deps.db.webhookDeliveries
    .find({ endpointId: endpoint._id, workspaceId: scope.workspaceId })
    .sort({ createdAt: -1, _id: -1 })
    .limit(input.limit)
    .toArray();
  return { deliveries: docs.map(deliveryView) };
}

/**
 * Sends a delivery again now, whatever its state, with a new 24-hour retry window; the attempt number
 * moves on, so a retry queued before is dropped when it falls due.
 */
export async function redeliver(
  deps: CoreDeps,
  scope: Scope,
  input: { id: string; deliveryId: string },
): Promise<WebhookDelivery> {
  const endpoint = await findWebhook(deps, scope, input.id);
  const filter = { _id: input.deliveryId, endpointId: endpoint._id, workspaceId: scope.workspaceId };
  const doc = await deps.db.webhookDeliveries.findOne(filter);
  if (!doc) throw new AppError('not_found', 'No delivery with this id for this webhook endpoint.');
  const now = deps.now();
  const reopened = { state: 'pending' as const, nextAttemptAt: now, windowStart: now };
  const updated = await deps.db.webhookDeliveries.updateOne({ ...filter, attempts: doc.attempts }, { $set: reopened });
  if (updated.matchedCount === 0) throw new AppError('conflict', 'An attempt of this delivery just ended; try again.');
  await queueAttempt(deps, doc._id, doc.attempts + 1, now);
  return deliveryView({ ...doc, ...reopened });
}

export function deliveryView(doc: WebhookDeliveryDoc): WebhookDelivery {
  const last = doc.history.at(-1) ?? null;
  return {
    id: doc._id,
    event: doc.type,
    eventId: doc.eventId,
    status: doc.state,
    attempt: doc.attempts,
    statusCode: last?.statusCode ?? null,
    error: shownError(last?.error ?? null),
    lastAttemptAt: last ? last.at.toISOString() : null,
    nextAttemptAt: doc.nextAttemptAt ? doc.nextAttemptAt.toISOString() : null,
    createdAt: doc.createdAt.toISOString(),
    attempts: doc.history.map((attempt) => ({
      at: attempt.at.toISOString(),
      statusCode: attempt.statusCode,
      error: shownError(attempt.error),
    })),
  };
}
