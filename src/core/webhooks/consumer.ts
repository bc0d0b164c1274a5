import { createHash } from 'node:crypto';
import type { EventConsumer } from '../events/deliver.js';
import type { DomainEvent } from '../events/documents.js';
import { isDuplicateKeyError } from '../errors.js';
import { webhookEventOf, type WebhookDeliveryDoc, type WebhookEndpointDoc, type WebhookEvent } from './documents.js';
import { queueAttempt } from './send-job.js';

/** The delivery id of an event to an endpoint: the same however often the event is handed over. */
export function deliveryIdOf(endpointId: string, eventId: string): string {
  return `msg_${createHash('sha256').update(`${endpointId}\n${eventId}`).digest('base64url').slice(0, 27)}`;
}

/**
 * Turns an outbox event into one delivery per endpoint of its workspace that asked for it, each sent by
 * its own due task. Idempotent: a delivery is inserted once under its id; an event handed over again
 * queues the first attempt again only for deliveries never attempted (the attempt number makes the
 * second task a no-op when the first ran).
 */
export const webhooksConsumer: EventConsumer = {
  name: 'webhooks',
  async handle(deps, event) {
    const type = webhookEventOf(event.type);
    if (!type) return;
    const endpoints = await deps.db.webhookEndpoints.find({ workspaceId: event.workspaceId }).toArray();
    for (const endpoint of endpoints) {
      if (!endpoint.events.includes(type)) continue;
      const delivery = newDelivery(endpoint, event, type, deps.now());
      try {
        await deps.db.webhookDeliveries.insertOne(delivery);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const stored = await deps.db.webhookDeliveries.findOne({ _id: delivery._id });
        if (!stored || stored.attempts > 0 || stored.state !== 'pending') continue;
      }
      await queueAttempt(deps, delivery._id, 1, deps.now());
    }
  },
};

function newDelivery(
  endpoint: WebhookEndpointDoc,
  event: DomainEvent,
  type: WebhookEvent,
  now: Date,
): WebhookDeliveryDoc {
  return pendingDelivery(endpoint._id, event, type, dataOf(event, type), now);
}

/** A delivery of one event to one endpoint, before its first attempt (test events are made here too). */
export function pendingDelivery(
  endpointId: string,
  event: Pick<DomainEvent, 'id' | 'workspaceId' | 'subjectId' | 'at'>,
  type: WebhookDeliveryDoc['type'],
  data: Record<string, string>,
  now: Date,
): WebhookDeliveryDoc {
  return {
    _id: deliveryIdOf(endpointId, event.id),
    workspaceId: event.workspaceId,
    endpointId,
    eventId: event.id,
    type,
    subjectId: event.subjectId,
    eventAt: event.at,
    body: JSON.stringify({ type, timestamp: event.at.toISOString(), data }),
    state: 'pending',
    attempts: 0,
    history: [],
    nextAttemptAt: now,
    windowStart: now,
    createdAt: now,
  };
}

/** What a delivery tells: the ids to read the rest with (get_post, get_generation_job), and a post's network. */
function dataOf(event: DomainEvent, type: WebhookEvent): Record<string, string> {
  const base = { workspaceId: event.workspaceId };
  if (type.startsWith('generation.')) return { ...base, generationJobId: event.subjectId };
  return {
    ...base,
    postId: event.subjectId,
    ...(event.generationJobId ? { generationJobId: event.generationJobId } : {}),
    // The network lets a receiver route a post without reading it first (an enum, not an id: still thin).
    ...(event.provider ? { provider: event.provider } : {}),
  };
}
