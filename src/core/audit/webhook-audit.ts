import type { CoreDeps, Scope } from '../context.js';
import type { WebhookEndpointDoc } from '../webhooks/documents.js';
import type { AuditAction } from './documents.js';
import { recordAudit } from './record.js';

/** The webhook actions; a new change of an endpoint (its secret rotated, say) adds its name here and to AUDIT_ACTIONS. */
export type WebhookAuditAction = Extract<AuditAction, `webhook.${string}`>;

/**
 * Records a change of one of the workspace's webhook endpoints, the one call each change makes after
 * it is stored. Given the endpoint's URL and events, the entry names the receiver's host and the
 * events, never the URL: a path or query may carry the receiver's own secret, and `user:pass@`
 * certainly does (a deletion passes the id alone: its creation's entry names the host). Each change
 * is its own entry (`occurrence` = when), since one endpoint may change many times.
 */
export function auditWebhookChange(
  deps: CoreDeps,
  scope: Scope,
  action: WebhookAuditAction,
  endpoint: Pick<WebhookEndpointDoc, '_id'> & Partial<Pick<WebhookEndpointDoc, 'url' | 'events'>>,
): Promise<void> {
  const { url, events } = endpoint;
  return recordAudit(deps, scope, {
    action,
    subject: { type: 'webhook', id: endpoint._id },
    details: {
      ...(url === undefined ? {} : { host: new URL(url).host }),
      ...(events === undefined ? {} : { events: events.join(',') }),
    },
    occurrence: String(deps.now().getTime()),
  });
}
