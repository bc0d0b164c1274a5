import { randomUUID } from 'node:crypto';
import { recordAudit } from '../../../audit/record.js';
import type { CoreDeps, Scope } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import { AppError, isDuplicateKeyError } from '../../../errors.js';
import { requireMembership } from '../../../identity/memberships.js';
import { buildAuthorizeUrl, exchangeCode, type TikTokTokens } from '../oauth.js';
import { issueOAuthState, OAUTH_STATE_TTL_MS, spendOAuthState } from '../../../platforms/oauth-states.js';
import { TOKEN_LEASE_TTL_MS, underTokenLease } from './token-access.js';
import { readTikTokProfile, type TikTokProfile } from './profile.js';
import { deleteTokens, storeTokens } from './tokens.js';
import { forgetCreatorInfo } from '../rules/creator-info-cache.js';
import { tiktokHttpOf } from '../http-of.js';
import type { ConnectCallback, ConnectOutcome, StartedConnection } from '../../port.js';

/**
 * Starts connecting a TikTok account to `scope`'s workspace (new or reconnect alike: TikTok's
 * consent page picks the account). `binding` ties the state to who started it: `session:<id>`
 * for a signed-in user, a one-off value for the admin CLI. No PKCE: TikTok requires it only for
 * desktop and mobile apps, and Postdeck is a web app holding a client secret (contract 1.1).
 */
export async function startTikTokConnection(
  deps: CoreDeps,
  scope: Scope,
  input: { binding: string },
): Promise<StartedConnection> {
  const state = await issueOAuthState(deps, scope, input.binding);
  return {
    authorizeUrl: buildAuthorizeUrl(tiktokHttpOf(deps), { state }),
    expiresAt: new Date(deps.now().getTime() + OAUTH_STATE_TTL_MS),
  };
}

/** The query TikTok sends back to the callback. */
export type TikTokCallback = ConnectCallback;

/** How a callback ended: an account connected (or updated), or the person said no on TikTok. */
export type ConnectionOutcome = ConnectOutcome;

/**
 * Finishes a connection from TikTok's callback: spends the state (refusing one that is unknown,
 * expired, spent or started by another `binding`), exchanges the code, reads the profile and
 * creates the platform, or updates the existing one of the same TikTok account in the workspace
 * (clearing disabled and refreshNeeded). Tokens are replaced only once everything before worked,
 * so a failure midway leaves the old sealed tokens in place.
 */
export async function completeTikTokConnection(
  deps: CoreDeps,
  callback: TikTokCallback,
  binding: string,
): Promise<ConnectionOutcome> {
  const state = await spendOAuthState(deps, callback.state, binding);
  const scope: Scope =
    state.userId === null
      ? { workspaceId: state.workspaceId, accountId: state.accountId, actor: { type: 'system' } }
      : await requireMembership(deps, state.userId, state.workspaceId);
  if (callback.error || !callback.code) {
    return {
      outcome: 'cancelled',
      workspaceId: scope.workspaceId,
      error: callback.error ?? 'invalid_request',
      description: callback.errorDescription ?? 'TikTok sent neither a code nor an error.',
    };
  }
  const tokens = await exchangeCode(tiktokHttpOf(deps), callback.code);
  const profile = await readTikTokProfile(tiktokHttpOf(deps), deps.logger, tokens.accessToken, tokens.scopes);
  const { platform, created } = await savePlatform(deps, scope, tokens, profile);
  deps.logger.info(
    { platformId: platform._id, workspaceId: scope.workspaceId, created, scopes: tokens.scopes },
    'tiktok account connected',
  );
  // A person connects on the web; without one, `postdeck admin connect-emulated-tiktok` started it.
  await recordAudit(
    deps,
    { ...scope, surface: state.userId === null ? 'cli' : 'web' },
    {
      action: 'platform.connected',
      subject: { type: 'platform', id: platform._id },
      details: { provider: 'tiktok', handle: platform.displayHandle, reconnected: !created },
      occurrence: String(platform.updatedAt.getTime()),
    },
  );
  return { outcome: 'connected', platform, created, workspaceId: scope.workspaceId };
}

async function savePlatform(
  deps: CoreDeps,
  scope: Scope,
  tokens: TikTokTokens,
  profile: TikTokProfile,
): Promise<{ platform: PlatformDoc; created: boolean }> {
  const key = { workspaceId: scope.workspaceId, provider: 'tiktok' as const, providerAccountId: tokens.openId };
  const existing = await deps.db.platforms.findOne(key);
  if (existing) return { platform: await updateExisting(deps, existing, tokens, profile), created: false };

  const now = deps.now();
  const doc: PlatformDoc = {
    _id: randomUUID(),
    ...key,
    displayName: profile.displayName,
    displayHandle: profile.displayHandle,
    displayImageUrl: profile.displayImageUrl,
    disabled: false,
    refreshNeeded: false,
    tokenExpiresAt: tokens.accessTokenExpiresAt,
    capabilities: profile.capabilities,
    metadata: profile.metadata,
    settings: {},
    createdAt: now,
    updatedAt: now,
  };
  // Tokens first: a platform is never visible without them. A new id is nobody else's yet, so no lease.
  await storeTokens(deps, doc._id, tokens);
  try {
    await deps.db.platforms.insertOne(doc);
    return { platform: doc, created: true };
  } catch (error) {
    await deleteTokens(deps, doc._id);
    if (!isDuplicateKeyError(error)) throw error;
    // The same account was connected concurrently: update that record instead.
    const winner = await deps.db.platforms.findOne(key);
    if (!winner) throw error;
    return { platform: await updateExisting(deps, winner, tokens, profile), created: false };
  }
}

async function updateExisting(
  deps: CoreDeps,
  existing: PlatformDoc,
  tokens: TikTokTokens,
  profile: TikTokProfile,
): Promise<PlatformDoc> {
  const done = await underTokenLease(
    deps,
    existing._id,
    async () => {
      await storeTokens(deps, existing._id, tokens);
      // A reconnect may change what the creator may do (another grant, settings changed meanwhile).
      await forgetCreatorInfo(deps, existing._id);
      // Profile-derived metadata is replaced whole (a narrower grant must not keep an old snapshot).
      const {
        scopes: _s,
        missingScopes: _m,
        analyticsRequested: _a,
        unionId: _u,
        creatorInfo: _c,
        ...kept
      } = existing.metadata;
      const changes = {
        displayName: profile.displayName,
        displayHandle: profile.displayHandle,
        displayImageUrl: profile.displayImageUrl,
        disabled: false,
        refreshNeeded: false,
        tokenExpiresAt: tokens.accessTokenExpiresAt,
        capabilities: profile.capabilities,
        metadata: { ...kept, ...profile.metadata },
        updatedAt: deps.now(),
      };
      await deps.db.platforms.updateOne({ _id: existing._id }, { $set: changes });
      return { ...existing, ...changes };
    },
    TOKEN_LEASE_TTL_MS + 5_000,
  );
  if (!done) throw new AppError('provider_error', 'The account is busy refreshing its tokens; try connecting again.');
  return done.value;
}
