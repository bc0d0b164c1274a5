import { randomUUID } from 'node:crypto';
import { recordAudit } from '../../../audit/record.js';
import type { CoreDeps, Scope } from '../../../context.js';
import { AppError, isDuplicateKeyError } from '../../../errors.js';
import { requireMembership } from '../../../identity/memberships.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import { issueOAuthState, OAUTH_STATE_TTL_MS, spendOAuthState } from '../../../platforms/oauth-states.js';
import type { ConnectCallback, ConnectOutcome, StartedConnection } from '../../port.js';
import { TOKEN_LEASE_TTL_MS, underTokenLease } from '../../token-lease.js';
import { GraphError, GraphTransportError } from '../graph-errors.js';
import type { InstagramHttp } from '../graph.js';
import { instagramHttpOf } from '../http-of.js';
import { buildInstagramAuthorizeUrl, exchangeInstagramCode } from '../oauth.js';
import { localMediaWarning } from './media-reach.js';
import { readInstagramProfile, type InstagramProfile } from './profile.js';
import { storeInstagramToken, type InstagramToken } from './tokens.js';
import { INSTAGRAM_POST_KINDS } from '../rules/post-kind.js';

const NETWORK = { provider: 'instagram', name: 'Instagram' } as const;

/** Starts connecting an Instagram account to `scope`'s workspace; `binding` ties the state to who started it. */
export async function startInstagramConnection(
  deps: CoreDeps,
  scope: Scope,
  input: { binding: string },
): Promise<StartedConnection> {
  const state = await issueOAuthState(deps, scope, input.binding, 'instagram');
  return {
    authorizeUrl: buildInstagramAuthorizeUrl(instagramHttpOf(deps), state),
    expiresAt: new Date(deps.now().getTime() + OAUTH_STATE_TTL_MS),
  };
}

/**
 * Finishes a connection from Instagram's callback: spends the state, redeems the code for the 60-day token,
 * reads the profile (refusing a personal account) and creates the platform, or updates the one of the same
 * account in the workspace. The token is replaced only once everything before worked.
 */
export async function completeInstagramConnection(
  deps: CoreDeps,
  callback: ConnectCallback,
  binding: string,
): Promise<ConnectOutcome> {
  const state = await spendOAuthState(deps, callback.state, binding, NETWORK);
  const scope: Scope =
    state.userId === null
      ? { workspaceId: state.workspaceId, accountId: state.accountId, actor: { type: 'system' } }
      : await requireMembership(deps, state.userId, state.workspaceId);
  if (callback.error || !callback.code) {
    return {
      outcome: 'cancelled',
      workspaceId: scope.workspaceId,
      error: callback.error ?? 'invalid_request',
      description: callback.errorDescription ?? 'Instagram sent neither a code nor an error.',
    };
  }
  const http = instagramHttpOf(deps);
  const { token, profile } = await loginOf(http, callback.code, deps.now());
  const { platform, created } = await savePlatform(deps, scope, token, profile);
  deps.logger.info(
    { platformId: platform._id, workspaceId: scope.workspaceId, created, scopes: token.scopes },
    'instagram account connected',
  );
  await recordAudit(
    deps,
    { ...scope, surface: state.userId === null ? 'cli' : 'web' },
    {
      action: 'platform.connected',
      subject: { type: 'platform', id: platform._id },
      details: { provider: 'instagram', handle: platform.displayHandle, reconnected: !created },
      occurrence: String(platform.updatedAt.getTime()),
    },
  );
  const warning = localMediaWarning(deps.media.publicBaseUrl, http.config.emulator === true);
  if (warning) deps.logger.warn({ platformId: platform._id, publicBaseUrl: deps.media.publicBaseUrl }, warning);
  return { outcome: 'connected', platform, created, workspaceId: scope.workspaceId, ...(warning ? { warning } : {}) };
}

/** The 60-day token and the profile of a login; Instagram's refusals and silences as errors people can act on. */
async function loginOf(
  http: InstagramHttp,
  code: string,
  now: Date,
): Promise<{ token: InstagramToken; profile: InstagramProfile }> {
  try {
    const token = await exchangeInstagramCode(http, code, now);
    return { token, profile: await readInstagramProfile(http, token.accessToken) };
  } catch (error) {
    if (error instanceof GraphError) {
      throw new AppError(
        'provider_error',
        `Instagram did not complete the connection (${error.message}). Start again from the accounts page.`,
      );
    }
    if (error instanceof GraphTransportError) {
      throw new AppError('provider_error', 'Instagram did not answer; try connecting again in a minute.');
    }
    throw error;
  }
}

/** What a connection records of the account (the scopes decide what it may do). */
function accountFields(token: InstagramToken, profile: InstagramProfile) {
  const capabilities = token.scopes.includes('instagram_business_content_publish') ? [...INSTAGRAM_POST_KINDS] : [];
  return {
    displayName: profile.name,
    displayHandle: profile.username,
    displayImageUrl: profile.pictureUrl,
    tokenExpiresAt: token.expiresAt,
    capabilities,
    metadata: { scopes: token.scopes, accountType: profile.accountType },
  };
}

async function savePlatform(
  deps: CoreDeps,
  scope: Scope,
  token: InstagramToken,
  profile: InstagramProfile,
): Promise<{ platform: PlatformDoc; created: boolean }> {
  const key = { workspaceId: scope.workspaceId, provider: 'instagram' as const, providerAccountId: profile.userId };
  const existing = await deps.db.platforms.findOne(key);
  if (existing) return { platform: await updateExisting(deps, existing, token, profile), created: false };
  const now = deps.now();
  const doc: PlatformDoc = {
    _id: randomUUID(),
    ...key,
    ...accountFields(token, profile),
    disabled: false,
    refreshNeeded: false,
    settings: {},
    createdAt: now,
    updatedAt: now,
  };
  // The token first: a platform is never visible without it. A new id is nobody else's yet, so no lease.
  await storeInstagramToken(deps, doc._id, token);
  try {
    await deps.db.platforms.insertOne(doc);
    return { platform: doc, created: true };
  } catch (error) {
    await deps.db.platformTokens.deleteOne({ _id: doc._id });
    if (!isDuplicateKeyError(error)) throw error;
    const winner = await deps.db.platforms.findOne(key);
    if (!winner) throw error;
    return { platform: await updateExisting(deps, winner, token, profile), created: false };
  }
}

async function updateExisting(
  deps: CoreDeps,
  existing: PlatformDoc,
  token: InstagramToken,
  profile: InstagramProfile,
): Promise<PlatformDoc> {
  const done = await underTokenLease(
    deps,
    existing._id,
    async () => {
      await storeInstagramToken(deps, existing._id, token);
      const changes = {
        ...accountFields(token, profile),
        disabled: false,
        refreshNeeded: false,
        updatedAt: deps.now(),
      };
      await deps.db.platforms.updateOne({ _id: existing._id }, { $set: changes });
      return { ...existing, ...changes };
    },
    TOKEN_LEASE_TTL_MS + 5_000,
  );
  if (!done) throw new AppError('provider_error', 'The account is busy refreshing its token; try connecting again.');
  return done.value;
}
