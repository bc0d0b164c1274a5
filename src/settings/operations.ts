import { z } from 'zod';
import type { RetentionSettings } from '../core/retention/settings.js';
import { DEFAULT_RETENTION } from '../core/retention/settings.js';
import { envBoolean } from './values.js';

/** Days a record is kept; 0 keeps it forever. Up to a century. */
const days = z.coerce.number().int().min(0).max(36_500);

/** Outbound webhooks and how long growing records are kept (part of the one schema in config.ts). */
export const OperationsEnvSchema = z.object({
  WEBHOOKS_ALLOW_PRIVATE: envBoolean.default(false),
  WEBHOOK_DELIVERY_RETENTION_DAYS: days.default(DEFAULT_RETENTION.webhookDeliveryDays),
  AUDIT_RETENTION_DAYS: days.default(DEFAULT_RETENTION.auditDays),
});

export interface OperationsSettings {
  readonly webhooks: { readonly allowPrivate: boolean }; // WEBHOOKS_ALLOW_PRIVATE: the SSRF guard off
  /** Settled webhook deliveries and audit entries older than this are purged by a worker, hourly. */
  readonly retention: RetentionSettings;
}

export function operationsSettings(vars: z.infer<typeof OperationsEnvSchema>): OperationsSettings {
  return {
    webhooks: { allowPrivate: vars.WEBHOOKS_ALLOW_PRIVATE },
    retention: { webhookDeliveryDays: vars.WEBHOOK_DELIVERY_RETENTION_DAYS, auditDays: vars.AUDIT_RETENTION_DAYS },
  };
}
