import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { auditWebhookChange } from '../audit/webhook-audit.js';
import type { CoreDeps, Scope } from '../context.js';
import { AppError } from '../errors.js';
import { resolveTarget } from './address-guard.js';
import type { WebhookEndpointDoc } from './documents.js';
import type { CreateWebhookInput, CreatedWebhookSchema, WebhookSchema } from './schema.js';
import { newSigningSecret } from './signature.js';

type Webhook = z.infer<typeof WebhookSchema>;

/** Endpoints one workspace may have: each event fans out to every one of them. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;

/** Registers an endpoint after checking where its host resolves (SSRF); the secret is answered once, stored sealed. */
export async function createWebhook(
  deps: CoreDeps,
  scope: Scope,
  input: CreateWebhookInput,
): Promise<z.infer<typeof CreatedWebhookSchema>> {
  const existing = await deps.db.webhookEndpoints.countDocuments({ workspaceId: scope.workspaceId });
  if (existing >= MAX_ENDPOINTS_PER_WORKSPACE) {
    throw new AppError(
      'webhook_limit_reached',
      `A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one to add another.`,
    );
  }
  const target = await resolveTarget(new URL(input.url), deps.webhooks.allowPrivate);
  if (!target.ok) {
    throw new AppError('invalid_request', 'The webhook URL is not allowed.', [
      { path: ['url'], message: target.reason },
    ]);
  }
  const secret = newSigningSecret();
  const doc: WebhookEndpointDoc = {
    _id: randomUUID(),
    workspaceId: scope.workspaceId,
    url: input.url,
    events: [...new Set(input.events)],
    secret: deps.secrets.seal(secret),
    createdAt: deps.now(),
  };
  await deps.db.webhookEndpoints.insertOne(doc);
  await auditWebhookChange(deps, scope, 'webhook.created', doc);
  return { ...webhookView(doc), secret };
}

export async function listWebhooks(deps: CoreDeps, scope: Scope): Promise<{ webhooks: Webhook[] }> {
  const docs = await deps.db.webhookEndpoints.find({ workspaceId: scope.workspaceId }).sort({ createdAt: 1 }).toArray();
  return { webhooks: docs.map(webhookView) };
}

/** Removes the endpoint and its deliveries (attempts still queued find neither and send nothing). */
export async function deleteWebhook(deps: CoreDeps, scope: Scope, id: string): Promise<void> {
  const removed = await deps.db.webhookEndpoints.deleteOne({ _id: id, workspaceId: scope.workspaceId });
  if (removed.deletedCount === 0) throw webhookNotFound();
  await auditWebhookChange(deps, scope, 'webhook.deleted', { _id: id });
  await deps.db.webhookDeliveries.deleteMany({ endpointId: id, workspaceId: scope.workspaceId });
}

/** The caller's endpoint, or not_found (another workspace's is not found either). */
export async function findWebhook(deps: CoreDeps, scope: Scope, id: string): Promise<WebhookEndpointDoc> {
  const doc = await deps.db.webhookEndpoints.findOne({ _id: id, workspaceId: scope.workspaceId });
  if (!doc) throw webhookNotFound();
  return doc;
}

function webhookNotFound(): AppError {
  return new AppError('not_found', 'No webhook endpoint with this id.');
}

export function webhookView(doc: WebhookEndpointDoc): Webhook {
  return { id: doc._id, url: maskedUrl(doc.url), events: doc.events, createdAt: doc.createdAt.toISOString() };
}

/** The URL with any user name and password in it replaced by `***`: they are kept for sending, never shown. */
export function maskedUrl(url: string): string {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return url;
  if (parsed.username) parsed.username = '***';
  if (parsed.password) parsed.password = '***';
  return parsed.href;
}
