import { describe, expect, it } from 'vitest';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';

const { t, server } = await useTestServer();

describe('/auth/key: the caller’s own key', () => {
  it('answers 401 missing_api_key and invalid_api_key', async () => {
    for (const method of ['GET', 'DELETE']) {
      const missing = await server.request('/auth/key', { method });
      expect(missing.status).toBe(401);
      expect(await missing.json()).toMatchObject({ code: 'missing_api_key' });
      const wrong = await server.request('/auth/key', { method, apiKey: `service_sk_${'z'.repeat(43)}` });
      expect(await wrong.json()).toMatchObject({ code: 'invalid_api_key' });
    }
  });

  it('describes the key and its workspace, never the secret', async () => {
    const tenant = await buildTenant(t.deps, { name: 'Key owner' });
    const response = await server.request('/auth/key', { apiKey: tenant.apiKey });
    const body = await response.json();
    expect(body).toMatchObject({ workspace: { id: tenant.workspaceId, name: 'Key owner' }, name: 'bootstrap' });
    expect(JSON.stringify(body)).not.toContain(tenant.apiKey);
  });

  it('revokes only the calling key', async () => {
    const tenant = await buildTenant(t.deps, { name: 'Two keys' });
    const other = await buildTenant(t.deps, { name: 'Two keys' });
    expect(other.workspaceId).toBe(tenant.workspaceId);
    expect((await server.request('/auth/key', { method: 'DELETE', apiKey: tenant.apiKey })).status).toBe(204);
    expect((await server.request('/public/v1/platforms', { apiKey: tenant.apiKey })).status).toBe(401);
    expect((await server.request('/public/v1/platforms', { apiKey: other.apiKey })).status).toBe(200);
  });
});
