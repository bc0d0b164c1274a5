import { randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { addressKey, countAgainstRateLimits } from '../auth/rate-limit.js';
import type { CoreDeps } from '../context.js';
import { hashSecret, newSecretToken } from '../identity/tokens.js';
import type { ClientAuthMethod, OAuthClientDoc } from './documents.js';
import { OAuthError } from './errors.js';
import { trimmedText } from '../text-schema.js';

const REGISTRATIONS_PER_ADDRESS_PER_HOUR = 30;

/** The RFC 7591 registration request fields Postdeck reads; others are accepted and ignored. */
const RegistrationSchema = z.object({
  redirect_uris: z.array(z.string().max(2000)).min(1).max(10),
  client_name: trimmedText(100).optional(),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_post', 'client_secret_basic']).default('none'),
  grant_types: z.array(z.string()).default(['authorization_code']),
  response_types: z.array(z.string()).default(['code']),
});

/**
 * Dynamic client registration (RFC 7591): open, as the MCP authorization spec expects, limited per
 * address. Redirect URIs must be https, http on a loopback address (native apps, RFC 8252), or a
 * reverse-domain private-use scheme such as `com.example.app:` (RFC 8252 7.1); never a scheme a
 * browser runs or reads locally (javascript:, vbscript:, data:, file:, …), never with a fragment.
 */
export async function registerOAuthClient(
  deps: CoreDeps,
  body: unknown,
  address: string,
): Promise<Record<string, unknown>> {
  await countAgainstRateLimits(
    deps,
    [
      {
        pool: `ratelimit:oauth-register:addr:${addressKey(address)}`,
        limit: REGISTRATIONS_PER_ADDRESS_PER_HOUR,
        windowMs: 60 * 60_000,
      },
    ],
    randomUUID(),
  );
  const parsed = RegistrationSchema.safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'body';
    const error = field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw new OAuthError(error, `${field}: ${issue?.message ?? 'invalid'}`);
  }
  const request = parsed.data;
  for (const uri of request.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `${uri}: ${problem}`);
  }
  if (request.grant_types.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token')) {
    throw new OAuthError('invalid_client_metadata', 'grant_types: only authorization_code is offered');
  }
  if (request.response_types.some((type) => type !== 'code')) {
    throw new OAuthError('invalid_client_metadata', 'response_types: only code is offered');
  }
  const secret = request.token_endpoint_auth_method === 'none' ? null : newSecretToken('pds_');
  const doc: OAuthClientDoc = {
    _id: `pdc_${randomUUID().replaceAll('-', '')}`,
    clientName: request.client_name ?? 'An unnamed application',
    redirectUris: request.redirect_uris,
    authMethod: request.token_endpoint_auth_method,
    secretHash: secret === null ? null : hashSecret(secret),
    createdAt: deps.now(),
  };
  await deps.db.oauthClients.insertOne(doc);
  deps.logger.info({ clientId: doc._id, clientName: doc.clientName }, 'OAuth client registered');
  return {
    client_id: doc._id,
    client_id_issued_at: Math.floor(doc.createdAt.getTime() / 1000),
    ...(secret === null ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
    client_name: doc.clientName,
    redirect_uris: doc.redirectUris,
    token_endpoint_auth_method: doc.authMethod,
    grant_types: ['authorization_code'],
    response_types: ['code'],
  };
}

/** Why a redirect URI is refused, or undefined when it is acceptable. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'not an absolute URI';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment';
  if (REFUSED_SCHEMES.includes(url.protocol)) return 'scheme not allowed';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.includes(url.hostname) ? undefined : 'http is allowed only on a loopback address; use https';
  }
  if (!PRIVATE_USE_SCHEME.test(url.protocol)) {
    return 'a private-use scheme must be a reversed domain name such as com.example.app: (RFC 8252 7.1)';
  }
  return undefined;
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];
/** Schemes a browser runs or reads locally: refused whatever their shape. */
const REFUSED_SCHEMES = [
  'javascript:',
  'vbscript:',
  'livescript:',
  'data:',
  'file:',
  'blob:',
  'about:',
  'filesystem:',
  'view-source:',
];
/** RFC 8252 7.1: a private-use scheme is a domain the app's publisher controls, reversed (`com.example.app:`). */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/;

/** The registered client `clientId`, or undefined. */
export function findOAuthClient(deps: CoreDeps, clientId: string): Promise<OAuthClientDoc | null> {
  return deps.db.oauthClients.findOne({ _id: clientId });
}

/** What a token request presented to identify its client. */
export interface PresentedClient {
  clientId: string | undefined;
  secret: string | undefined;
  method: ClientAuthMethod;
}

/** Authenticates a token request's client as it registered (RFC 6749 2.3), or `invalid_client`. */
export async function authenticateOAuthClient(deps: CoreDeps, presented: PresentedClient): Promise<OAuthClientDoc> {
  const refused = new OAuthError('invalid_client', 'The client is unknown or did not authenticate', 401);
  if (!presented.clientId) throw refused;
  const client = await findOAuthClient(deps, presented.clientId);
  if (!client) throw refused;
  if (client.secretHash === null) return client;
  if (presented.secret === undefined || presented.method !== client.authMethod) throw refused;
  const given = Buffer.from(hashSecret(presented.secret), 'hex');
  if (!timingSafeEqual(given, Buffer.from(client.secretHash, 'hex'))) throw refused;
  return client;
}
