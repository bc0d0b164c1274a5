/** How long records that only grow are kept, in days (from the configuration); 0 keeps them forever. */
export interface RetentionSettings {
  /** WEBHOOK_DELIVERY_RETENTION_DAYS: settled deliveries, counted from their last (re)delivery. */
  readonly webhookDeliveryDays: number;
  /** AUDIT_RETENTION_DAYS: audit entries, counted from the change. */
  readonly auditDays: number;
}

/** What an operator would expect: a month of delivery logs, a year and a bit of audit trail (a yearly review). */
export const DEFAULT_RETENTION: RetentionSettings = { webhookDeliveryDays: 30, auditDays: 400 };
