import { defineOperation } from '../operations/operation.js';
import { listDeliveries, redeliver } from './deliveries.js';
import { createWebhook, deleteWebhook, listWebhooks } from './endpoints.js';
import {
  CreatedWebhookSchema,
  CreateWebhookInputSchema,
  ListDeliveriesInputSchema,
  RedeliverInputSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookIdInputSchema,
  WebhookListSchema,
} from './schema.js';
import { z } from 'zod';

export const createWebhookOperation = defineOperation({
  name: 'create_webhook',
  title: 'Create webhook',
  summary:
    "Registers an HTTPS endpoint that receives the workspace's events (post.created, post.published, post.failed, generation.done, generation.failed) as signed Standard Webhooks POSTs, retried with backoff for 24 hours; the signing secret is answered once",
  input: CreateWebhookInputSchema,
  output: CreatedWebhookSchema,
  result: 'the endpoint and its signing secret (shown only now)',
  errors: ['invalid_request'],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: (deps, scope, input) => createWebhook(deps, scope, input),
});

export const listWebhooksOperation = defineOperation({
  name: 'list_webhooks',
  title: 'List webhooks',
  summary: "The workspace's webhook endpoints and the events each receives (secrets are never shown again)",
  input: z.object({}),
  output: WebhookListSchema,
  result: 'the endpoints, oldest first',
  errors: [],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope) => listWebhooks(deps, scope),
});

export const deleteWebhookOperation = defineOperation({
  name: 'delete_webhook',
  title: 'Delete webhook',
  summary: 'Removes a webhook endpoint and its delivery log; deliveries still waiting are not sent',
  input: WebhookIdInputSchema,
  result: 'nothing',
  errors: ['invalid_request', 'not_found'],
  hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  run: (deps, scope, input) => deleteWebhook(deps, scope, input.id),
});

export const listWebhookDeliveriesOperation = defineOperation({
  name: 'list_webhook_deliveries',
  title: 'List webhook deliveries',
  summary:
    "A webhook endpoint's delivery log, newest first: each event's status (pending, delivered, failed), attempts with the receiver's status code or the error, and when the next attempt is due",
  input: ListDeliveriesInputSchema,
  output: WebhookDeliveryListSchema,
  result: 'the newest deliveries',
  errors: ['invalid_request', 'not_found'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => listDeliveries(deps, scope, input),
});

export const redeliverWebhookOperation = defineOperation({
  name: 'redeliver_webhook',
  title: 'Redeliver webhook',
  summary:
    'Sends a delivery again now, with the same id, body and a fresh signature, and retries it with backoff for another 24 hours if the receiver fails',
  input: RedeliverInputSchema,
  output: WebhookDeliverySchema,
  result: 'the delivery, pending again',
  errors: ['invalid_request', 'not_found', 'conflict'],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: (deps, scope, input) => redeliver(deps, scope, input),
});

/** The webhook operations, in the order the API reference lists them. */
export const webhookOperations = [
  createWebhookOperation,
  listWebhooksOperation,
  deleteWebhookOperation,
  listWebhookDeliveriesOperation,
  redeliverWebhookOperation,
] as const;
