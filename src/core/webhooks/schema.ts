import { z } from 'zod';
import { ATTEMPT_ERRORS } from './attempt-errors.js';
import { TEST_EVENT, WEBHOOK_EVENTS } from './documents.js';

const EventSchema = z.enum(WEBHOOK_EVENTS);
const DeliveredEventSchema = z.enum([...WEBHOOK_EVENTS, TEST_EVENT]);

/** The longest overlap a rotated secret may keep signing for: a week. */
export const MAX_OVERLAP_MINUTES = 7 * 24 * 60;

const AttemptErrorSchema = z
  .enum(ATTEMPT_ERRORS)
  .nullable()
  .describe(
    'what went wrong, as a category (the error text stays in the server log): timeout (no status within 15 s), dns_failure, address_refused (a loopback, private or reserved address), connection_refused, connection_reset, host_unreachable, tls_error, http_status (answered outside 2xx), network_error; null when delivered',
  );

export const CreateWebhookInputSchema = z.object({
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(2_000)
    .describe(
      'where deliveries are POSTed; its host must resolve, and one resolving to a loopback, private, link-local or reserved address is refused unless the server allows private endpoints',
    ),
  events: z
    .array(EventSchema)
    .min(1)
    .max(WEBHOOK_EVENTS.length)
    .describe('the events to deliver: post.created, post.published, post.failed, generation.done, generation.failed'),
});
export type CreateWebhookInput = z.infer<typeof CreateWebhookInputSchema>;

export const WebhookIdInputSchema = z.object({ id: z.uuid().describe('the webhook endpoint id') });

export const ListDeliveriesInputSchema = WebhookIdInputSchema.extend({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('how many of the newest deliveries (default 50)'),
});

export const RedeliverInputSchema = WebhookIdInputSchema.extend({
  deliveryId: z
    .string()
    .regex(/^msg_[A-Za-z0-9_-]{1,64}$/, 'must be a delivery id (msg_…)')
    .describe('the delivery id (its webhook-id header)'),
});

export const RotateSecretInputSchema = WebhookIdInputSchema.extend({
  overlapMinutes: z
    .int()
    .min(0)
    .max(MAX_OVERLAP_MINUTES)
    .default(24 * 60)
    .describe(
      'how long the old secret keeps signing beside the new one, in minutes (default 1440, a day; at most 10080, a week; 0 stops it at once)',
    ),
});
export type RotateSecretInput = z.infer<typeof RotateSecretInputSchema>;

export const WebhookSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(EventSchema),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Webhook' });

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z
    .string()
    .describe('the signing secret (whsec_…) to verify deliveries with a Standard Webhooks library; shown only here'),
}).meta({ id: 'CreatedWebhook' });

export const RotatedWebhookSchema = CreatedWebhookSchema.extend({
  secret: z.string().describe('the new signing secret (whsec_…); shown only here'),
  previousSecretExpiresAt: z.iso
    .datetime()
    .nullable()
    .describe('until when the old secret also signs each delivery; null when it stopped at once'),
}).meta({ id: 'RotatedWebhook' });

export const WebhookListSchema = z.object({ webhooks: z.array(WebhookSchema) }).meta({ id: 'WebhookList' });

const AttemptSchema = z.object({
  at: z.iso.datetime(),
  statusCode: z
    .int()
    .nullable()
    .describe("the receiver's status; null when it gave none (refused, network error, timeout)"),
  error: AttemptErrorSchema,
});

export const WebhookDeliverySchema = z
  .object({
    id: z.string().describe('the delivery id, sent as the webhook-id header on every attempt'),
    event: DeliveredEventSchema.describe('the event, or webhook.test for a test delivery'),
    eventId: z.string(),
    status: z
      .enum(['pending', 'delivered', 'failed'])
      .describe('failed: retries ended 24 hours after the first attempt'),
    attempt: z.int().min(0).describe('attempts made'),
    statusCode: z.int().nullable().describe("the last attempt's status code"),
    error: AttemptErrorSchema.describe("the last attempt's error category"),
    lastAttemptAt: z.iso.datetime().nullable(),
    nextAttemptAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    attempts: z.array(AttemptSchema).describe('the newest attempts (at most 20), oldest first'),
  })
  .meta({ id: 'WebhookDelivery' });

export const WebhookDeliveryListSchema = z
  .object({ deliveries: z.array(WebhookDeliverySchema).describe('newest first') })
  .meta({ id: 'WebhookDeliveryList' });
