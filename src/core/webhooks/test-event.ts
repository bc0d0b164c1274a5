import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import { pendingDelivery } from './consumer.js';
import { deliveryView } from './deliveries.js';
import { TEST_EVENT } from './documents.js';
import { findWebhook } from './endpoints.js';
import type { WebhookDeliverySchema } from './schema.js';
import { queueAttempt } from './send-job.js';

/**
 * Sends a `webhook.test` event to one endpoint through the normal delivery path: a delivery in its log,
 * signed, retried with backoff like any other, so a receiver can be tried before a real event happens.
 */
export async function sendTestEvent(
  deps: CoreDeps,
  scope: Scope,
  input: { id: string },
): Promise<z.infer<typeof WebhookDeliverySchema>> {
  const endpoint = await findWebhook(deps, scope, input.id);
  const now = deps.now();
  const eventId = `test_${randomUUID()}`;
  // Its own subject: a test never waits behind a pending delivery, nor holds one back.
  const event = { id: eventId, workspaceId: scope.workspaceId, subjectId: eventId, at: now };
  const data = { workspaceId: scope.workspaceId, endpointId: endpoint._id };
  const delivery = pendingDelivery(endpoint._id, event, TEST_EVENT, data, now);
  await deps.db.webhookDeliveries.insertOne(delivery);
  await queueAttempt(deps, delivery._id, 1, now);
  return deliveryView(delivery);
}
