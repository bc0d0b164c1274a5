import { recordAudit } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import { AppError } from '../errors.js';
import { hashSecret, newSecretToken } from '../identity/tokens.js';
import { findOAuthClient } from './clients.js';
import type { OAuthClientDoc } from './documents.js';

/** A code is exchanged right after the redirect; a few minutes allow for a slow client. */
export const CODE_TTL_MS = 5 * 60_000;

/** A checked authorization request, ready for the consent page. */
export interface AuthorizationRequest {
  client: OAuthClientDoc;
  redirectUri: string;
  codeChallenge: string;
  state: string | undefined;
  resource: string;
}

/**
 * The outcome of checking an authorization request (RFC 6749 4.1.2.1): a request to show, or an
 * error about a registered client and redirect URI. Such an error goes back to the client only
 * once the person has signed in and seen the client's name (the consent form's post); before that
 * it is shown on Postdeck's page, since anyone can register a client (RFC 9700 4.11.2). An unknown
 * client or unregistered redirect URI is an AppError, always shown to the person.
 */
export type CheckedAuthorization =
  { ok: true; request: AuthorizationRequest } | { ok: false; description: string; redirectTo: string };

/** Checks the query of `/oauth/authorize` against the registered client and the one resource offered. */
export async function checkAuthorizationRequest(
  deps: CoreDeps,
  query: Record<string, string | undefined>,
  context: { issuer: string; resource: string },
): Promise<CheckedAuthorization> {
  const client = query.client_id ? await findOAuthClient(deps, query.client_id) : null;
  if (!client) throw new AppError('invalid_request', 'This sign-in link names an application Postdeck does not know.');
  const redirectUri = query.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    throw new AppError('invalid_request', 'This sign-in link sends you somewhere the application did not register.');
  }
  const back = (error: string, description: string) => ({
    ok: false as const,
    description,
    redirectTo: redirectWith(
      redirectUri,
      { error, error_description: description, state: query.state },
      context.issuer,
    ),
  });
  if (query.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code');
  if (!query.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(query.code_challenge)) {
    return back('invalid_request', 'PKCE is required: send code_challenge (S256, 43 characters)');
  }
  if (query.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256');
  if (query.resource !== undefined && query.resource !== context.resource) {
    return back('invalid_target', `The only resource offered is ${context.resource}`);
  }
  return {
    ok: true,
    request: {
      client,
      redirectUri,
      codeChallenge: query.code_challenge,
      state: query.state,
      resource: context.resource,
    },
  };
}

/**
 * The member approved: a single-use code bound to the client, its redirect URI, the PKCE challenge
 * and the chosen workspace (the scope comes from a membership check). Returns where to send the browser.
 */
export async function approveAuthorization(
  deps: CoreDeps,
  scope: Scope,
  userId: string,
  request: AuthorizationRequest,
  issuer: string,
): Promise<string> {
  const code = newSecretToken('pda_');
  const now = deps.now();
  await deps.db.oauthCodes.insertOne({
    _id: hashSecret(code),
    clientId: request.client._id,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    workspaceId: scope.workspaceId,
    accountId: scope.accountId,
    userId,
    keyId: null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
  });
  deps.logger.info(
    { clientId: request.client._id, workspaceId: scope.workspaceId, userId },
    'OAuth authorization approved',
  );
  await recordAudit(deps, scope, {
    action: 'oauth.granted',
    subject: { type: 'oauth_client', id: request.client._id },
    details: { clientName: request.client.clientName },
    // One entry per consent: the code's hash tells them apart and is no secret.
    occurrence: hashSecret(code).slice(0, 16),
  });
  return redirectWith(request.redirectUri, { code, state: request.state }, issuer);
}

/** The member declined: the client hears `access_denied`. */
export function denyAuthorization(request: AuthorizationRequest, issuer: string): string {
  return redirectWith(
    request.redirectUri,
    { error: 'access_denied', error_description: 'The person declined', state: request.state },
    issuer,
  );
}

/** The redirect URI with the answer's parameters (and `iss`, RFC 9207) added to its query. */
function redirectWith(redirectUri: string, params: Record<string, string | undefined>, issuer: string): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...params, iss: issuer })) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.toString();
}
