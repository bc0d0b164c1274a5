import type { z } from 'zod';
import { auditWebhookChange } from '../audit/webhook-audit.js';
import type { CoreDeps, Scope } from '../context.js';
import type { WebhookEndpointDoc } from './documents.js';
import { findWebhook, webhookView } from './endpoints.js';
import type { RotatedWebhookSchema, RotateSecretInput } from './schema.js';
import { newSigningSecret } from './signature.js';

/**
 * Gives the endpoint a new signing secret, answered once and stored sealed. The secret it replaces keeps
 * signing beside it for `overlapMinutes` (both signatures in one header, as Standard Webhooks allows), so
 * a receiver can switch without losing a delivery; 0 stops the old one at once (a leaked secret). A
 * rotation during an overlap drops the oldest secret: at most two ever sign.
 */
export async function rotateWebhookSecret(
  deps: CoreDeps,
  scope: Scope,
  input: RotateSecretInput,
): Promise<z.infer<typeof RotatedWebhookSchema>> {
  const endpoint = await findWebhook(deps, scope, input.id);
  const secret = newSigningSecret();
  const until = new Date(deps.now().getTime() + input.overlapMinutes * 60_000);
  const overlap = input.overlapMinutes > 0;
  const rotated: WebhookEndpointDoc = {
    ...endpoint,
    secret: deps.secrets.seal(secret),
    ...(overlap ? { previousSecret: endpoint.secret, previousSecretUntil: until } : {}),
  };
  if (!overlap) {
    delete rotated.previousSecret;
    delete rotated.previousSecretUntil;
  }
  await deps.db.webhookEndpoints.replaceOne({ _id: endpoint._id, workspaceId: scope.workspaceId }, rotated);
  await auditWebhookChange(deps, scope, 'webhook.secret_rotated', { _id: endpoint._id });
  return { ...webhookView(rotated), secret, previousSecretExpiresAt: overlap ? until.toISOString() : null };
}

/** The secrets that sign an attempt made at `now`: the endpoint's own, then the previous one while its overlap lasts. */
export function signingSecrets(deps: CoreDeps, endpoint: WebhookEndpointDoc, now: Date): string[] {
  const current = deps.secrets.open(endpoint.secret);
  const previousLasts = endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now;
  return previousLasts ? [current, deps.secrets.open(endpoint.previousSecret!)] : [current];
}
