import { describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/core/auth/api-keys.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';

const { t, server } = await useTestServer();

describe('GET /public/v1/platforms', () => {
  it('returns an empty list for a workspace with no connected accounts', async () => {
    const tenant = await buildTenant(t.deps);
    const response = await server.request('/public/v1/platforms', { apiKey: tenant.apiKey });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ platforms: [] });
  });

  it("lists only this workspace's ready accounts", async () => {
    const a = await buildTenant(t.deps);
    const b = await buildTenant(t.deps);
    const ready = await buildPlatform(t.deps, a.workspaceId);
    await buildPlatform(t.deps, a.workspaceId, { disabled: true });
    await buildPlatform(t.deps, a.workspaceId, { refreshNeeded: true });
    await buildPlatform(t.deps, b.workspaceId);

    const body = (await (await server.request('/public/v1/platforms', { apiKey: a.apiKey })).json()) as {
      platforms: { id: string; providerName: string; tokenExpiresAt: string }[];
    };
    expect(body.platforms.map((p) => p.id)).toEqual([ready._id]);
    expect(body.platforms[0]).toMatchObject({ provider: 'tiktok', providerName: 'TikTok', disabled: false });
    expect(body.platforms[0]?.tokenExpiresAt).toBe(ready.tokenExpiresAt?.toISOString());
  });
});

describe('API key authentication', () => {
  it('answers 401 missing_api_key without a key', async () => {
    const response = await server.request('/public/v1/platforms');
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'missing_api_key' });
  });

  it('answers 401 missing_api_key for a non-Bearer authorization header', async () => {
    const response = await server.request('/public/v1/platforms', { headers: { authorization: 'Basic abc' } });
    expect(((await response.json()) as { code: string }).code).toBe('missing_api_key');
  });

  it.each([
    ['a malformed key', 'nope'],
    ['a well-formed unknown key', `service_sk_${'A'.repeat(43)}`],
  ])('answers 401 invalid_api_key for %s', async (_label, key) => {
    const response = await server.request('/public/v1/platforms', { apiKey: key });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'invalid_api_key', message: expect.any(String) });
  });

  it('answers 401 invalid_api_key once the key is revoked', async () => {
    const tenant = await buildTenant(t.deps);
    expect((await server.request('/public/v1/platforms', { apiKey: tenant.apiKey })).status).toBe(200);
    const key = await t.deps.db.apiKeys.findOne({ workspaceId: tenant.workspaceId });
    await revokeApiKey(
      t.deps,
      { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' } },
      key!._id,
    );
    const response = await server.request('/public/v1/platforms', { apiKey: tenant.apiKey });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'invalid_api_key' });
  });

  it('stays revoked when requests with the key race the revocation', async () => {
    const tenant = await buildTenant(t.deps);
    const key = await t.deps.db.apiKeys.findOne({ workspaceId: tenant.workspaceId });
    const scope = { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' } as const };
    await Promise.all([
      ...Array.from({ length: 20 }, () => server.request('/public/v1/platforms', { apiKey: tenant.apiKey })),
      revokeApiKey(t.deps, scope, key!._id),
    ]);
    const response = await server.request('/public/v1/platforms', { apiKey: tenant.apiKey });
    expect(response.status).toBe(401);
    expect((await t.deps.db.apiKeys.findOne({ _id: key!._id }))?.revokedAt).toBeInstanceOf(Date);
  });

  it('stores keys only as a hash, with a short display prefix and last-used time', async () => {
    const tenant = await buildTenant(t.deps);
    expect(tenant.apiKey).toMatch(/^service_sk_[A-Za-z0-9_-]{43}$/);
    await server.request('/public/v1/platforms', { apiKey: tenant.apiKey });
    const stored = await t.db.collection('api_keys').findOne({ workspaceId: tenant.workspaceId });
    expect(JSON.stringify(stored)).not.toContain(tenant.apiKey.slice('service_sk_'.length));
    expect(stored?.prefix).toBe(tenant.apiKey.slice(0, 'service_sk_'.length + 8));
    await t.deps.keyCache.flush();
    const usage = await t.db.collection('api_key_usage').findOne({ _id: stored?._id });
    expect(usage?.lastUsedAt).toBeInstanceOf(Date);
  });

  it("reports another workspace's key revocation as not found", async () => {
    const a = await buildTenant(t.deps);
    const b = await buildTenant(t.deps);
    const bKey = await t.deps.db.apiKeys.findOne({ workspaceId: b.workspaceId });
    await expect(
      revokeApiKey(
        t.deps,
        { workspaceId: a.workspaceId, accountId: a.accountId, actor: { type: 'system' } },
        bKey!._id,
      ),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect((await server.request('/public/v1/platforms', { apiKey: b.apiKey })).status).toBe(200);
  });
});
