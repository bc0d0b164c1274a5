import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformSchema } from '../../src/core/platforms/schema.js';
import { readTokens } from '../../src/core/providers/tiktok/connect/tokens.js';
import type { TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import type { TestServer } from '../support/http.js';
import { startTikTokStack, type TikTokStack } from '../support/tiktok-stack.js';
import { expireCreatorInfo, type TikTokFixture } from '../support/tiktok.js';
import { connectAccount, control, systemScope } from './support.js';

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let stack: TikTokStack;
beforeAll(async () => {
  stack = await startTikTokStack();
  ({ f, t, server } = stack);
});
afterAll(() => stack.stop());

async function connected(fields: Record<string, unknown> = {}) {
  const tenant = await buildTenant(t.deps);
  const account = await f.createAccount(fields);
  const platform = await connectAccount(t.deps, systemScope(tenant), account.openId);
  return { tenant, account, platform };
}

describe('GET /public/v1/platforms', () => {
  it('answers 401 missing_api_key without a key and invalid_api_key with a wrong one', async () => {
    const missing = await server.request('/public/v1/platforms');
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: 'missing_api_key' });
    const wrong = await server.request('/public/v1/platforms', { apiKey: `service_sk_${'B'.repeat(43)}` });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'invalid_api_key' });
  });

  it('shows a connected account with exactly the spec fields, its token expiry as ISO and no token', async () => {
    const { tenant, account, platform } = await connected({ displayName: 'Shape Test', username: 'shape.test' });
    const response = await server.request('/public/v1/platforms', { apiKey: tenant.apiKey });
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text) as { platforms: Record<string, unknown>[] };
    expect(body.platforms).toHaveLength(1);
    const listed = body.platforms[0]!;
    expect(Object.keys(listed).sort()).toEqual(Object.keys(PlatformSchema.shape).sort());
    expect(PlatformSchema.parse(listed)).toEqual(listed);
    expect(listed).toMatchObject({
      id: platform._id,
      provider: 'tiktok',
      providerName: 'TikTok',
      providerAccountId: account.openId,
      displayName: 'Shape Test',
      displayHandle: 'shape.test',
      disabled: false,
      refreshNeeded: false,
      capabilities: ['video', 'photo', 'draft'],
      settings: {},
    });
    const tokens = await readTokens(t.deps, platform._id);
    expect(listed.tokenExpiresAt).toBe(tokens?.accessTokenExpiresAt.toISOString());
    expect(text).not.toContain(tokens!.accessToken.slice(4));
    expect(text).not.toContain(tokens!.refreshToken.slice(4));
  });
});

describe('GET /public/v1/platforms/{id}/schema', () => {
  it("answers with the creator's live nickname and privacy options", async () => {
    const { tenant, account, platform } = await connected({
      displayName: 'Live Nick',
      privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'],
    });
    const first = await server.request(`/public/v1/platforms/${platform._id}/schema`, { apiKey: tenant.apiKey });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      platformId: platform._id,
      provider: 'tiktok',
      account: { creatorNickname: 'Live Nick' },
      privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'],
    });
    await control(f, `/accounts/${account.openId}`, { privacyLevelOptions: ['SELF_ONLY'] }, 'PATCH');
    const options = async () =>
      (
        (await (
          await server.request(`/public/v1/platforms/${platform._id}/schema`, { apiKey: tenant.apiKey })
        ).json()) as { privacyLevelOptions: string[] }
      ).privacyLevelOptions;
    // Reused for half a minute, then read again.
    expect(await options()).toEqual(['PUBLIC_TO_EVERYONE', 'SELF_ONLY']);
    await expireCreatorInfo(t.deps);
    expect(await options()).toEqual(['SELF_ONLY']);
  });

  it("answers 404 not_found for another workspace's platform and for an unknown id", async () => {
    const { platform } = await connected();
    const other = await buildTenant(t.deps);
    const foreign = await server.request(`/public/v1/platforms/${platform._id}/schema`, { apiKey: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ code: 'not_found' });
    const unknown = await server.request('/public/v1/platforms/00000000-0000-4000-8000-000000000000/schema', {
      apiKey: other.apiKey,
    });
    expect(unknown.status).toBe(404);
  });

  it('answers 400 invalid_request for an id that is not a uuid', async () => {
    const tenant = await buildTenant(t.deps);
    const response = await server.request('/public/v1/platforms/nope/schema', { apiKey: tenant.apiKey });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_request' });
  });

  it('answers 409 conflict with a reconnect message once the authorization has ended', async () => {
    const { tenant, account, platform } = await connected();
    await control(f, `/accounts/${account.openId}/tokens`, { action: 'revoke' });
    const response = await server.request(`/public/v1/platforms/${platform._id}/schema`, { apiKey: tenant.apiKey });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: 'conflict', message: expect.stringMatching(/Reconnect/) });
    expect((await t.deps.db.platforms.findOne({ _id: platform._id }))?.refreshNeeded).toBe(true);
  });

  it('answers 409 conflict for an account that did not allow posting', async () => {
    const { tenant, platform } = await connected({ deniedScopes: ['video.publish'] });
    const response = await server.request(`/public/v1/platforms/${platform._id}/schema`, { apiKey: tenant.apiKey });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: 'conflict', message: expect.stringMatching(/video\.publish/) });
  });
});
