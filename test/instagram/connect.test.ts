import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../src/core/errors.js';
import { listPlatforms } from '../../src/core/platforms/list-platforms.js';
import { localMediaWarning } from '../../src/core/providers/instagram/connect/media-reach.js';
import { withInstagramToken } from '../../src/core/providers/instagram/connect/token-access.js';
import { instagramHttpOf } from '../../src/core/providers/instagram/http-of.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import {
  answerInstagramConsent,
  connectedInstagram,
  connectThroughConsent,
  instagramCallbackFrom,
  startInstagramFixture,
  type InstagramFixture,
} from '../support/instagram.js';
import { systemScope } from '../platforms/support.js';

let f: InstagramFixture;
let t: TestDatabase;
beforeAll(async () => {
  f = await startInstagramFixture();
  t = await openTestDatabase({ instagram: f.config });
});
afterAll(async () => {
  await t.close();
  await f.close();
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return error as AppError;
}

describe('connecting an Instagram account', () => {
  it('creates a ready platform keyed by the professional account id, with its token sealed at rest', async () => {
    const tenant = await buildTenant(t.deps);
    const { platform, account } = await connectedInstagram(t, f, tenant, {
      username: 'nora.bakes',
      name: 'Nora Bakes',
      accountType: 'MEDIA_CREATOR',
    });
    expect(platform).toMatchObject({
      workspaceId: tenant.workspaceId,
      provider: 'instagram',
      providerAccountId: account.userId,
      displayName: 'Nora Bakes',
      displayHandle: 'nora.bakes',
      capabilities: ['image', 'carousel', 'reel'],
      disabled: false,
      refreshNeeded: false,
    });
    // The 60-day token, not the 1-hour one.
    expect(platform.tokenExpiresAt!.getTime() - Date.now()).toBeGreaterThan(59 * 86_400_000);
    const stored = await t.deps.db.platformTokens.findOne({ _id: platform._id });
    const grant = f.emulator.control.grants.filter((g) => g.accountId === account.id && g.kind === 'long').at(-1)!;
    expect(stored?.provider).toBe('instagram');
    expect(JSON.stringify(stored)).not.toContain(grant.token);
    const listed = await listPlatforms(t.deps, systemScope(tenant));
    expect(listed).toEqual([
      expect.objectContaining({ id: platform._id, provider: 'instagram', providerName: 'Instagram' }),
    ]);
  });

  it('warns at connect time that Instagram cannot fetch media from a local PUBLIC_URL', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount();
    const outcome = await connectThroughConsent(t.deps, systemScope(tenant), account.id);
    expect(outcome).toMatchObject({ outcome: 'connected' });
    expect(outcome.outcome === 'connected' && outcome.warning).toContain(
      'public media address, http://localhost, which is a local address Instagram cannot reach',
    );
    for (const local of [
      'http://127.0.0.1:8080',
      'http://10.1.2.3',
      'http://192.168.1.9',
      'http://[::1]:80',
      'http://box.local',
    ]) {
      expect(localMediaWarning(local, false), local).toContain('posts to real Instagram accounts would fail');
    }
    for (const open of ['https://media.example.com', 'https://8.8.8.8', 'http://172.32.0.1']) {
      expect(localMediaWarning(open, false), open).toBeNull();
    }
  });

  it('calls Graph with the stored token through withInstagramToken', async () => {
    const tenant = await buildTenant(t.deps);
    const { platform, account } = await connectedInstagram(t, f, tenant);
    const me = await withInstagramToken(t.deps, platform, (token) =>
      instagramHttpOf(t.deps).get<{ user_id: string }>('/me', { fields: 'user_id' }, token),
    );
    expect(me.user_id).toBe(account.userId);
  });

  it('refuses a personal account with words that say how to switch to a professional one', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount({ username: 'just.me', accountType: 'PERSONAL' });
    const error = await rejection(connectThroughConsent(t.deps, systemScope(tenant), account.id));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('@just.me is a personal Instagram account');
    expect(error.message).toContain('Switch to professional account');
    expect(await t.deps.db.platforms.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
  });

  it("turns Instagram's refusal during login into provider_error with what to do, connecting nothing", async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount();
    const fault = { endpoint: 'me', code: 2, httpStatus: 500 };
    expect((await f.control('POST', `/__control/accounts/${account.id}/faults`, fault)).status).toBe(201);
    const error = await rejection(connectThroughConsent(t.deps, systemScope(tenant), account.id));
    expect(error.code).toBe('provider_error');
    expect(error.message).toContain('Instagram did not complete the connection');
    expect(await t.deps.db.platforms.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
  });

  it('answers cancelled when the person presses Cancel on the consent page', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount();
    const provider = t.deps.providers.of({ provider: 'instagram' });
    const started = await provider.connect.start(t.deps, systemScope(tenant), { binding: 'b' });
    const callback = await answerInstagramConsent(started.authorizeUrl, account.id, 'cancel');
    const outcome = await provider.connect.complete(t.deps, instagramCallbackFrom(callback), 'b');
    expect(outcome).toMatchObject({ outcome: 'cancelled', error: 'access_denied' });
  });

  it('refuses a TikTok connection state at the Instagram callback', async () => {
    const tenant = await buildTenant(t.deps);
    const account = await f.createAccount();
    const tiktokStart = await t.deps.providers
      .of({ provider: 'tiktok' })
      .connect.start(t.deps, systemScope(tenant), { binding: 'b' });
    const state = new URL(tiktokStart.authorizeUrl).searchParams.get('state') ?? '';
    const provider = t.deps.providers.of({ provider: 'instagram' });
    const started = await provider.connect.start(t.deps, systemScope(tenant), { binding: 'b' });
    const callback = instagramCallbackFrom(await answerInstagramConsent(started.authorizeUrl, account.id));
    const error = await rejection(provider.connect.complete(t.deps, { ...callback, state }, 'b'));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('Instagram connection link has expired');
  });

  it('marks the account for reconnecting when Instagram says its token is dead (code 190)', async () => {
    const tenant = await buildTenant(t.deps);
    const { platform, account } = await connectedInstagram(t, f, tenant, { username: 'revoked.one' });
    expect((await f.control('POST', `/__control/accounts/${account.id}/tokens`, { action: 'revoke' })).status).toBe(
      200,
    );
    const error = await rejection(
      withInstagramToken(t.deps, platform, (token) => instagramHttpOf(t.deps).get('/me', {}, token)),
    );
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('Reconnect this Instagram account (@revoked.one)');
    expect(await t.deps.db.platforms.findOne({ _id: platform._id })).toMatchObject({ refreshNeeded: true });
  });
});
