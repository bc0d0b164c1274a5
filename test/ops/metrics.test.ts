import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromMetrics } from 'prom2javascript';
import { z } from 'zod';
import { TikTokApiError } from '../../src/core/providers/tiktok/errors.js';
import { buildTenant } from '../support/factories.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { parseExposition, sampleValue, withMetrics } from '../support/metrics.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

// /metrics after known traffic: the counts that traffic caused, in an exposition a Prometheus parser reads whole.
let database: TestDatabase;
let metered: ReturnType<typeof withMetrics>;
let server: TestServer;
let tiktok: TikTokFixture;
let mcp: Client | undefined;
beforeAll(async () => {
  database = await openTestDatabase();
  metered = withMetrics(database);
  server = await startTestServer(metered.t, { app: { metrics: { registry: metered.registry, token: undefined } } });
  tiktok = await startTikTokFixture({}, { metrics: metered.registry, maxRetries: 0 });
});
afterAll(async () => {
  await mcp?.close();
  await server.stop();
  await tiktok.emulator.stop();
  await database.close();
});

async function scrape(): Promise<PromMetrics> {
  const response = await server.request('/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return await parseExposition(await response.text());
}

describe('GET /metrics', { timeout: 60_000 }, () => {
  it('counts the requests, tool call and TikTok call the test made, by route pattern', async () => {
    const { apiKey } = await buildTenant(metered.t.deps);
    // Three posts that do not exist, each by its own id: one series under the route's pattern.
    for (let i = 0; i < 3; i += 1) {
      expect((await server.request(`/public/v1/posts/${randomUUID()}`, { apiKey })).status).toBe(404);
    }
    expect((await server.request(`/no-such-page-${randomUUID()}`)).status).toBe(404);
    mcp = await connectMcpOverHttp(server.url, apiKey);
    const listed = await mcp.callTool({ name: 'list_platforms', arguments: {} });
    expect(listed.isError).toBeFalsy();
    await expect(
      tiktok.http.api({
        method: 'POST',
        path: '/v2/post/publish/creator_info/query/',
        accessToken: 'not-a-token',
        schema: z.unknown(),
        safe: true,
        limit: 20,
      }),
    ).rejects.toBeInstanceOf(TikTokApiError);

    const families = await scrape();
    const http = 'postdeck_http_request_duration_seconds';
    expect(sampleValue(families, http, { method: 'GET', route: '/public/v1/posts/:id', status: '404' })).toBe(3);
    expect(sampleValue(families, http, { route: 'unmatched', status: '404' })).toBe(1);
    // No raw path (a uuid has dashes) became a label value.
    const routes = (families[http]!.data as { labels: Record<string, string> }[]).map((sample) => sample.labels.route);
    expect(routes.filter((route) => route?.includes('-'))).toEqual([]);
    expect(sampleValue(families, 'postdeck_mcp_tool_calls_total', { tool: 'list_platforms', outcome: 'ok' })).toBe(1);
    const creatorInfo = { provider: 'tiktok', endpoint: '/v2/post/publish/creator_info/query/' };
    expect(sampleValue(families, 'postdeck_provider_requests_total', creatorInfo)).toBe(1);
    expect(sampleValue(families, 'postdeck_provider_requests_total', { ...creatorInfo, status: '401' })).toBe(1);
  });

  it('parses whole with a Prometheus text parser, every family typed as declared', async () => {
    const response = await server.request('/metrics');
    const text = await response.text();
    const families = await parseExposition(text);
    const declared = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name, type]);
    expect(Object.entries(families).map(([name, family]) => [name, family.type])).toEqual(declared);
    const expected: Record<string, string> = {
      postdeck_http_request_duration_seconds: 'histogram',
      postdeck_mcp_tool_calls_total: 'counter',
      postdeck_chat_interactions_total: 'counter',
      postdeck_jobs_total: 'counter',
      postdeck_publish_outcomes_total: 'counter',
      postdeck_provider_requests_total: 'counter',
      postdeck_credits_spent_total: 'counter',
      postdeck_outbox_backlog: 'gauge',
      postdeck_outbox_delivery_lag_seconds: 'gauge',
      postdeck_database_round_trip_seconds: 'gauge',
      nodejs_eventloop_lag_seconds: 'gauge',
    };
    for (const [name, type] of Object.entries(expected)) expect(families[name]?.type, name).toBe(type);
    expect(sampleValue(families, 'postdeck_database_round_trip_seconds', {})).toBeGreaterThan(0);
    expect(sampleValue(families, 'postdeck_outbox_backlog', {})).toBe(0);
  });

  it('the Grafana dashboard queries only metrics the exposition has', async () => {
    const dashboard = JSON.parse(await readFile('docs/ops/grafana-dashboard.json', 'utf8')) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    const families = await scrape();
    const queried = new Set<string>();
    for (const panel of dashboard.panels) {
      for (const target of panel.targets ?? []) {
        for (const [name] of target.expr.matchAll(/\b(?:postdeck|nodejs|process)_[a-z0-9_]+/g)) queried.add(name);
      }
    }
    expect(queried.size).toBeGreaterThan(8);
    for (const name of queried) {
      const family = name.replace(/_(bucket|sum|count)$/, '');
      expect(families[name] !== undefined || families[family]?.type === 'histogram', name).toBe(true);
    }
  });
});
