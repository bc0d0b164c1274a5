import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsAccess } from '../../src/http/metrics/access.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { withMetrics } from '../support/metrics.js';

// /metrics is not public: the bearer of METRICS_TOKEN, or without one, callers on this machine only.
const TOKEN = 'metrics-token-0123456789abcdef';
let database: TestDatabase;
let withToken: TestServer;
let loopbackOnly: TestServer;
beforeAll(async () => {
  database = await openTestDatabase();
  const { t, registry } = withMetrics(database);
  withToken = await startTestServer(t, { app: { metrics: { registry, token: TOKEN } } });
  loopbackOnly = await startTestServer(t, { app: { trustProxy: true, metrics: { registry, token: undefined } } });
});
afterAll(async () => {
  await withToken.stop();
  await loopbackOnly.stop();
  await database.close();
});

describe('who may read /metrics', { timeout: 60_000 }, () => {
  it('with METRICS_TOKEN set: only its bearer, even from loopback', async () => {
    const none = await withToken.request('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await none.json()).toMatchObject({ code: 'invalid_credentials' });
    expect((await withToken.request('/metrics', { apiKey: `${TOKEN}x` })).status).toBe(401);
    expect((await withToken.request('/metrics', { apiKey: TOKEN.slice(1) })).status).toBe(401);
    const right = await withToken.request('/metrics', { apiKey: TOKEN });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('# TYPE postdeck_http_request_duration_seconds histogram');
  });

  it('without a token: loopback callers, never a request a proxy forwarded (TRUST_PROXY on)', async () => {
    expect((await loopbackOnly.request('/metrics')).status).toBe(200);
    const headers: [string, string][] = [
      ['x-forwarded-for', '127.0.0.1'],
      ['x-forwarded-for', '203.0.113.9'],
      ['forwarded', 'for=203.0.113.9'],
      ['x-real-ip', '203.0.113.9'],
    ];
    for (const [name, value] of headers) {
      const forwarded = await loopbackOnly.request('/metrics', { headers: { [name]: value } });
      expect(forwarded.status, `${name}: ${value}`).toBe(403);
      expect(await forwarded.json()).toMatchObject({ code: 'forbidden' });
    }
  });

  it('without a token: a connection from another address is refused', () => {
    const from = (remoteAddress: string) => metricsAccess(undefined, { headers: {}, remoteAddress });
    expect(from('127.0.0.1')).toBe('ok');
    expect(from('::ffff:127.0.0.1')).toBe('ok');
    expect(from('::1')).toBe('ok');
    expect(from('10.0.0.5')).toBe('forbidden');
    expect(from('::ffff:192.168.1.20')).toBe('forbidden');
    expect(from('fe80::1')).toBe('forbidden');
  });
});
