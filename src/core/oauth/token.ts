import { createHash } from 'node:crypto';
import { mintApiKey, revokeApiKey } from '../auth/api-keys.js';
import type { CoreDeps } from '../context.js';
import { claimLease } from '../db/leases.js';
import { purgeExpiredWithLeases } from '../db/purge-expired.js';
import { hashSecret } from '../identity/tokens.js';
import { authenticateOAuthClient, type PresentedClient } from './clients.js';
import { OAuthError } from './errors.js';

/** The token request's fields (RFC 6749 4.1.3, RFC 7636 4.5, RFC 8707). */
export interface TokenRequest {
  grantType: string | undefined;
  code: string | undefined;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
  resource: string | undefined;
  client: PresentedClient;
}

/**
 * Exchanges an authorization code for an access token. The token is a Postdeck API key bound to
 * the workspace the member chose, so it is listed on /keys, revocable there, and checked like any
 * key; it does not expire, so there is no refresh token. A replayed code is refused, and the key
 * the code already gave is revoked (RFC 6749 4.1.2).
 */
export async function exchangeAuthorizationCode(
  deps: CoreDeps,
  request: TokenRequest,
): Promise<Record<string, unknown>> {
  if (request.grantType !== 'authorization_code') {
    throw new OAuthError('unsupported_grant_type', 'Only grant_type authorization_code is offered');
  }
  const client = await authenticateOAuthClient(deps, request.client);
  if (!request.code || !request.codeVerifier) {
    throw new OAuthError('invalid_request', 'code and code_verifier are required');
  }
  const invalid = new OAuthError('invalid_grant', 'The code is invalid, expired or already used');
  const codeId = hashSecret(request.code);
  const doc = await deps.db.oauthCodes.findOne({ _id: codeId });
  if (!doc || doc.clientId !== client._id || doc.expiresAt <= deps.now()) throw invalid;
  if (request.redirectUri !== undefined && request.redirectUri !== doc.redirectUri) throw invalid;
  if (request.resource !== undefined && request.resource !== doc.resource) {
    throw new OAuthError('invalid_target', `The code was granted for ${doc.resource}`);
  }
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(request.codeVerifier) || s256(request.codeVerifier) !== doc.codeChallenge) {
    throw invalid;
  }
  if (!(await claimLease(deps.db, leaseKey(codeId), { now: deps.now() }))) {
    await revokeReplayedGrant(deps, codeId);
    throw invalid;
  }
  const { apiKey, view } = await mintApiKey(deps, {
    workspaceId: doc.workspaceId,
    accountId: doc.accountId,
    userId: doc.userId,
    name: `${client.clientName} (OAuth)`,
    // Granted on the consent page; the token request only collects it.
    surface: 'web',
  });
  await deps.db.oauthCodes.updateOne({ _id: codeId }, { $set: { keyId: view.id } });
  deps.logger.info({ clientId: client._id, keyId: view.id, workspaceId: doc.workspaceId }, 'OAuth code exchanged');
  return { access_token: apiKey, token_type: 'Bearer' };
}

async function revokeReplayedGrant(deps: CoreDeps, codeId: string): Promise<void> {
  const doc = await deps.db.oauthCodes.findOne({ _id: codeId });
  if (!doc?.keyId) return;
  const scope = { workspaceId: doc.workspaceId, accountId: doc.accountId, actor: { type: 'system' as const } };
  await revokeApiKey(deps, scope, doc.keyId);
  deps.logger.warn({ clientId: doc.clientId, keyId: doc.keyId }, 'OAuth code replayed: its key was revoked');
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** Deletes codes past their expiry with their leases; returns how many went. */
export function purgeExpiredOAuthCodes(deps: CoreDeps): Promise<number> {
  return purgeExpiredWithLeases(deps.db, deps.db.oauthCodes, leaseKey, deps.now());
}

function leaseKey(codeId: string): string {
  return `oauth-code:${codeId}`;
}
