// Stored documents of outbound webhooks: a workspace's endpoints and each event's delivery to one.

import type { EventType } from '../events/documents.js';

/** The events an endpoint may ask for, by their public names. */
export const WEBHOOK_EVENTS = [
  'post.created',
  'post.published',
  'post.failed',
  'generation.done',
  'generation.failed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The event of a test delivery (send_test_webhook): sent on request only, never subscribed to. */
export const TEST_EVENT = 'webhook.test';
/** What a delivery carries: a subscribed event or a test. */
export type DeliveredEvent = WebhookEvent | typeof TEST_EVENT;

/** The public name of an internal event, or null for events webhooks do not carry (the metrics milestones). */
export function webhookEventOf(type: EventType): WebhookEvent | null {
  if (type === 'draft.created') return 'post.created';
  return (WEBHOOK_EVENTS as readonly string[]).includes(type) ? (type as WebhookEvent) : null;
}

/** An endpoint a workspace registered (`_id` = a uuid). */
export interface WebhookEndpointDoc {
  _id: string;
  workspaceId: string;
  url: string;
  events: WebhookEvent[];
  /** The signing secret (`whsec_…`), sealed with the token encryption key; shown once at registration. */
  secret: string;
  /**
   * The secret before the last rotation (sealed), which still signs beside the new one until
   * `previousSecretUntil`; absent when the secret was never rotated or the overlap was none.
   */
  previousSecret?: string;
  previousSecretUntil?: Date;
  createdAt: Date;
}

/** One try at sending a delivery. */
export interface WebhookAttempt {
  at: Date;
  /** The receiver's status code; null when no answer came (refused address, network error, timeout). */
  statusCode: number | null;
  /** An AttemptError category (attempt-errors.ts); attempts stored before categories hold the error's text. */
  error: string | null;
}

/**
 * One event's delivery to one endpoint (`_id` = `msg_` and a hash of the endpoint and event ids: one
 * delivery per pair however often the event is delivered to the consumer, and the `webhook-id` the
 * receiver sees on every attempt).
 */
export interface WebhookDeliveryDoc {
  _id: string;
  workspaceId: string;
  endpointId: string;
  eventId: string;
  type: DeliveredEvent;
  /** The post or generation job: deliveries of one subject to one endpoint go out in event order. */
  subjectId: string;
  eventAt: Date;
  /** The JSON body, fixed when the delivery is made, so every attempt sends the same bytes. */
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  /** Attempts made so far. */
  attempts: number;
  /** The newest attempts, newest last (at most MAX_KEPT_ATTEMPTS). */
  history: WebhookAttempt[];
  nextAttemptAt: Date | null;
  /** Retries stop 24 hours after this: the first attempt, or the last redelivery. */
  windowStart: Date;
  createdAt: Date;
}
