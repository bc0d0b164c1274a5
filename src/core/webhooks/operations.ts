import { defineOperation } from '../operations/operation.js';
import { listDeliveries, redeliver } from './deliveries.js';
import { createWebhook, deleteWebhook, listWebhooks, MAX_ENDPOINTS_PER_WORKSPACE } from './endpoints.js';
import { rotateWebhookSecret } from './rotation.js';
import { sendTestEvent } from './test-event.js';
import {
  CreatedWebhookSchema,
  RotatedWebhookSchema,
  RotateSecretInputSchema,
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
  summary: `Registers an HTTPS endpoint that receives the workspace's events (post.created, post.published, post.failed, generation.done, generation.failed) as signed Standard Webhooks POSTs, retried with backoff for 24 hours; the signing secret is answered once. A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} endpoints; a user name and password in the URL are sent but never shown`,
  input: CreateWebhookInputSchema,
  output: CreatedWebhookSchema,
  result: 'the endpoint and its signing secret (shown only now)',
  errors: ['invalid_request', 'webhook_limit_reached'],
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

export const rotateWebhookSecretOperation = defineOperation({
  name: 'rotate_webhook_secret',
  title: 'Rotate webhook secret',
  summary:
    'Gives a webhook endpoint a new signing secret, answered once; the old one keeps signing beside it (both signatures in the webhook-signature header) for the overlap asked (default a day, at most a week, 0 for none), then only the new one signs',
  input: RotateSecretInputSchema,
  output: RotatedWebhookSchema,
  result: 'the endpoint, its new signing secret (shown only now) and when the old one stops signing',
  errors: ['invalid_request', 'not_found'],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: (deps, scope, input) => rotateWebhookSecret(deps, scope, input),
});

export const sendTestWebhookOperation = defineOperation({
  name: 'send_test_webhook',
  title: 'Send test webhook',
  summary:
    'Sends a webhook.test event to one endpoint now, signed and retried like any delivery, and logs it with the others: try a receiver before a real event happens',
  input: WebhookIdInputSchema,
  output: WebhookDeliverySchema,
  result: 'the test delivery, pending',
  errors: ['invalid_request', 'not_found'],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: (deps, scope, input) => sendTestEvent(deps, scope, input),
});

/** The webhook operations, in the order the API reference lists them. */
export const webhookOperations = [
  createWebhookOperation,
  listWebhooksOperation,
  deleteWebhookOperation,
  listWebhookDeliveriesOperation,
  redeliverWebhookOperation,
  sendTestWebhookOperation,
  rotateWebhookSecretOperation,
] as const;
