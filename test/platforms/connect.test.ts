import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../src/core/errors.js';
import { listPlatforms } from '../../src/core/platforms/list-platforms.js';
import { completeTikTokConnection, startTikTokConnection } from '../../src/core/providers/tiktok/connect/connect.js';
import { withTikTokToken } from '../../src/core/providers/tiktok/connect/token-access.js';
import { readTokens } from '../../src/core/providers/tiktok/connect/tokens.js';
import { refreshTokens } from '../../src/core/providers/tiktok/oauth.js';
import { getUserInfo } from '../../src/core/providers/tiktok/user-info.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { buildUser } from '../support/identity.js';
import { answerConsent, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { callbackFrom, connectAccount, control, liveGrant, systemScope } from './support.js';

let f: TikTokFixture;
let t: TestDatabase;
beforeAll(async () => {
  f = await startTikTokFixture();
  t = await openTestDatabase({ tiktok: f.config });
});
afterAll(async () => {
  await t.close();
  await f.emulator.stop();
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return error as AppError;
}

describe('connecting a TikTok account', () => {
  it('creates a ready platform from the profile and creator info, with the granted capabilities', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount({
      displayName: 'Nora Bakes',
      username: 'nora.bakes',
      avatarUrl: 'https://example.invalid/nora.jpg',
      privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'],
    });
    const platform = await connectAccount(t.deps, systemScope(tenant), account.openId);

    expect(platform).toMatchObject({
      workspaceId: tenant.workspaceId,
      provider: 'tiktok',
      providerAccountId: account.openId,
      displayName: 'Nora Bakes',
      displayHandle: 'nora.bakes',
      displayImageUrl: 'https://example.invalid/nora.jpg',
      disabled: false,
      refreshNeeded: false,
      capabilities: ['video', 'photo', 'draft'],
    });
    expect(platform.metadata).toMatchObject({
      scopes: [
        'user.info.basic',
        'user.info.profile',
        'video.publish',
        'video.upload',
        'video.list',
        'user.info.stats',
      ],
      missingScopes: [],
      creatorInfo: { nickname: 'Nora Bakes', privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'] },
    });
    const grant = liveGrant(f, account.openId);
    const tokens = await readTokens(t.deps, platform._id);
    expect(tokens?.accessToken).toBe(grant.accessToken);
    expect(tokens?.refreshToken).toBe(grant.refreshToken);
    expect(platform.tokenExpiresAt?.getTime()).toBe(tokens?.accessTokenExpiresAt.getTime());
    const listed = await listPlatforms(t.deps, systemScope(tenant));
    expect(listed.map((p) => p.id)).toEqual([platform._id]);
  });

  it('reconnecting the same account keeps one record, clears refreshNeeded and stores a working refresh token', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount({ displayName: 'Before' });
    const first = await connectAccount(t.deps, systemScope(tenant), account.openId);
    const before = await readTokens(t.deps, first._id);

    // The grant dies at TikTok; the next use finds out and marks the platform.
    await control(f, `/accounts/${account.openId}/tokens`, { action: 'revoke' });
    await t.deps.db.platformTokens.updateOne({ _id: first._id }, { $set: { accessTokenExpiresAt: new Date(0) } });
    const dead = await rejection(withTikTokToken(t.deps, first, (token) => getUserInfo(f.http, token)));
    expect(dead.code).toBe('conflict');
    expect((await t.deps.db.platforms.findOne({ _id: first._id }))?.refreshNeeded).toBe(true);

    await control(f, `/accounts/${account.openId}`, { displayName: 'After' }, 'PATCH');
    const again = await connectAccount(t.deps, systemScope(tenant), account.openId);
    expect(again._id).toBe(first._id);
    expect(again).toMatchObject({ displayName: 'After', refreshNeeded: false, disabled: false });
    expect(await t.deps.db.platforms.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);

    const after = await readTokens(t.deps, first._id);
    expect(after?.refreshToken).not.toBe(before?.refreshToken);
    const refreshed = await refreshTokens(f.http, after!.refreshToken);
    expect(refreshed.openId).toBe(account.openId);
  });

  it('connects the same TikTok account to two workspaces as two platforms', async () => {
    const a = await buildTenant(t.deps);
    const b = await buildTenant(t.deps);
    const account = await f.createAccount();
    const pa = await connectAccount(t.deps, systemScope(a), account.openId);
    const pb = await connectAccount(t.deps, systemScope(b), account.openId);
    expect(pa._id).not.toBe(pb._id);
  });

  it('reports a cancelled consent and creates nothing', async () => {
    const tenant = await buildTenant(t.deps);
    await f.createAccount();
    const started = await startTikTokConnection(t.deps, systemScope(tenant), { binding: 'session:x' });
    const callback = await answerConsent(started.authorizeUrl, { decision: 'cancel' });
    const result = await completeTikTokConnection(t.deps, callbackFrom(callback), 'session:x');
    expect(result).toMatchObject({ outcome: 'cancelled', workspaceId: tenant.workspaceId, error: 'access_denied' });
    expect(await t.deps.db.platforms.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
  });

  it('refuses a state used twice', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount();
    const started = await startTikTokConnection(t.deps, systemScope(tenant), { binding: 'session:y' });
    const callback = callbackFrom(await answerConsent(started.authorizeUrl, { openId: account.openId }));
    expect((await completeTikTokConnection(t.deps, callback, 'session:y')).outcome).toBe('connected');
    const again = await rejection(completeTikTokConnection(t.deps, callback, 'session:y'));
    expect(again.code).toBe('invalid_request');
    expect(again.message).toMatch(/expired or was already used/);
  });

  it('lets exactly one of two concurrent callbacks with the same state through', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount();
    const started = await startTikTokConnection(t.deps, systemScope(tenant), { binding: 'session:race' });
    const callback = callbackFrom(await answerConsent(started.authorizeUrl, { openId: account.openId }));
    const results = await Promise.allSettled([
      completeTikTokConnection(t.deps, callback, 'session:race'),
      completeTikTokConnection(t.deps, callback, 'session:race'),
      completeTikTokConnection(t.deps, callback, 'session:race'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('refuses a state from another session without spending it', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount();
    const started = await startTikTokConnection(t.deps, systemScope(tenant), { binding: 'session:mine' });
    const callback = callbackFrom(await answerConsent(started.authorizeUrl, { openId: account.openId }));
    const foreign = await rejection(completeTikTokConnection(t.deps, callback, 'session:attacker'));
    expect(foreign.code).toBe('forbidden');
    expect(foreign.message).toMatch(/another browser session/);
    expect((await completeTikTokConnection(t.deps, callback, 'session:mine')).outcome).toBe('connected');
  });

  it('refuses an expired state and an unknown one', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount();
    const past = { ...t.deps, now: () => new Date(Date.now() - 16 * 60_000) };
    const started = await startTikTokConnection(past, systemScope(tenant), { binding: 'session:old' });
    const callback = callbackFrom(await answerConsent(started.authorizeUrl, { openId: account.openId }));
    expect((await rejection(completeTikTokConnection(t.deps, callback, 'session:old'))).code).toBe('invalid_request');
    const unknown = { ...callback, state: 'made-up' };
    expect((await rejection(completeTikTokConnection(t.deps, unknown, 'session:old'))).code).toBe('invalid_request');
  });

  it('stores no state, only its hash, and binds it to the session by hash too', async () => {
    const tenant = await buildTenant(t.deps);
    const started = await startTikTokConnection(t.deps, systemScope(tenant), { binding: 'session:secret-sid' });
    const state = new URL(started.authorizeUrl).searchParams.get('state')!;
    const raw = JSON.stringify(await t.db.collection('oauth_states').find({}).toArray());
    expect(raw).not.toContain(state);
    expect(raw).not.toContain('secret-sid');
  });

  it('refuses a callback for a user who left the workspace since starting', async () => {
    const user = await buildUser(t.deps);
    const account = await f.createAccount();
    const started = await startTikTokConnection(t.deps, user.scope, { binding: 'session:left' });
    const callback = callbackFrom(await answerConsent(started.authorizeUrl, { openId: account.openId }));
    await t.deps.db.memberships.deleteMany({ userId: user.user.id });
    expect((await rejection(completeTikTokConnection(t.deps, callback, 'session:left'))).code).toBe('not_found');
  });
});

describe('partial grants', () => {
  it('without user.info.profile: the handle comes from creator info and the gap is recorded', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount({ username: 'from.creator.info', deniedScopes: ['user.info.profile'] });
    const platform = await connectAccount(t.deps, systemScope(tenant), account.openId);
    expect(platform.displayHandle).toBe('from.creator.info');
    expect(platform.capabilities).toEqual(['video', 'photo', 'draft']);
    expect(platform.metadata.missingScopes).toEqual(['user.info.profile']);
  });

  it('without video.publish: only drafts, no creator info snapshot', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount({ username: 'drafts.only', deniedScopes: ['video.publish'] });
    const platform = await connectAccount(t.deps, systemScope(tenant), account.openId);
    expect(platform.displayHandle).toBe('drafts.only');
    expect(platform.capabilities).toEqual(['draft']);
    expect(platform.metadata.creatorInfo).toBeUndefined();
    expect(platform.metadata.missingScopes).toEqual(['video.publish']);
  });

  it('a failing token exchange leaves the existing record and its tokens as they were', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount();
    const platform = await connectAccount(t.deps, systemScope(tenant), account.openId);
    const before = await readTokens(t.deps, platform._id);
    await control(f, `/accounts/${account.openId}/failures`, { endpoint: 'token', status: 500, code: 'server_error' });
    const failed = await rejection(connectAccount(t.deps, systemScope(tenant), account.openId));
    expect(failed.code).toBe('provider_error');
    const after = await readTokens(t.deps, platform._id);
    expect(after?.refreshToken).toBe(before?.refreshToken);
    expect((await refreshTokens(f.http, after!.refreshToken)).openId).toBe(account.openId);
  });
});
