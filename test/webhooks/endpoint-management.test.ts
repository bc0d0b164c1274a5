import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENDPOINTS_PER_WORKSPACE } from '../../src/core/webhooks/endpoints.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { call, detailPaths, type Tenant } from '../support/posts.js';

// Managing endpoints beyond registering them, over REST and MCP with private endpoints refused: credentials
// in a URL masked, the cap per workspace, rotating the signing secret and sending a test event (their
// validation, authentication and workspace scoping). How rotated secrets sign: deliveries.test.ts.
const { t, server } = await useTestServer();
/** A public address given as a literal, so registration needs no DNS; nothing is ever sent to it here. */
const PUBLIC_URL = 'https://8.8.8.8/postdeck-hooks';
const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

let a: Tenant;
let b: Tenant;
let endpointA: string;
beforeAll(async () => {
  a = await buildTenant(t.deps);
  b = await buildTenant(t.deps);
  const created = await call(server, a.apiKey, 'POST', '/webhooks', { url: PUBLIC_URL, events: ['post.published'] });
  expect(created.status).toBe(201);
  endpointA = created.body.id as string;
});

async function mcp(apiKey: string): Promise<Client> {
  const client = await connectMcpOverHttp(server.url, apiKey);
  clients.push(client);
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function errorOf(result: CallToolResult): { code: string; details?: { path: (string | number)[] }[] } {
  expect(result.isError).toBe(true);
  return (JSON.parse((result.content[0] as { text: string }).text) as { error: { code: string } }).error;
}

describe('credentials in an endpoint URL', () => {
  it('are masked in the answer, the list and MCP, and kept for sending', async () => {
    const url = 'https://hook-user:s3cret-pass@8.8.8.8/with-creds';
    const created = await call(server, a.apiKey, 'POST', '/webhooks', { url, events: ['post.failed'] });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe('https://***:***@8.8.8.8/with-creds');
    const listed = await call(server, a.apiKey, 'GET', '/webhooks');
    expect(listed.text).not.toContain('s3cret-pass');
    expect(listed.text).not.toContain('hook-user');
    expect(listed.text).toContain('https://***:***@8.8.8.8/with-creds');
    const viaMcp = await tool(await mcp(a.apiKey), 'list_webhooks', {});
    expect(JSON.stringify(viaMcp)).not.toContain('s3cret-pass');
    const stored = await t.deps.db.webhookEndpoints.findOne({ _id: created.body.id as string });
    expect(stored!.url).toBe(url);
  });
});

describe('the cap on endpoints per workspace', () => {
  it(`refuses endpoint ${MAX_ENDPOINTS_PER_WORKSPACE + 1} with 409 webhook_limit_reached until one is deleted`, async () => {
    const c = await buildTenant(t.deps);
    const ids: string[] = [];
    for (let i = 0; i < MAX_ENDPOINTS_PER_WORKSPACE; i++) {
      const created = await call(server, c.apiKey, 'POST', '/webhooks', { url: PUBLIC_URL, events: ['post.created'] });
      expect(created.status).toBe(201);
      ids.push(created.body.id as string);
    }
    const refused = await call(server, c.apiKey, 'POST', '/webhooks', { url: PUBLIC_URL, events: ['post.created'] });
    expect([refused.status, refused.body.code]).toEqual([409, 'webhook_limit_reached']);
    expect(refused.body.message).toContain(String(MAX_ENDPOINTS_PER_WORKSPACE));
    const viaMcp = await tool(await mcp(c.apiKey), 'create_webhook', { url: PUBLIC_URL, events: ['post.created'] });
    expect(errorOf(viaMcp).code).toBe('webhook_limit_reached');
    expect(await t.deps.db.webhookEndpoints.countDocuments({ workspaceId: c.workspaceId })).toBe(
      MAX_ENDPOINTS_PER_WORKSPACE,
    );
    // Another workspace is not held back by c's endpoints.
    expect(
      (await call(server, b.apiKey, 'POST', '/webhooks', { url: PUBLIC_URL, events: ['post.created'] })).status,
    ).toBe(201);
    expect((await call(server, c.apiKey, 'DELETE', `/webhooks/${ids[0]!}`)).status).toBe(204);
    expect(
      (await call(server, c.apiKey, 'POST', '/webhooks', { url: PUBLIC_URL, events: ['post.created'] })).status,
    ).toBe(201);
  });
});

describe('rotating the signing secret', () => {
  it('answers a new secret once, keeps the old one sealed for a day by default, and lists no secret', async () => {
    const before = await t.deps.db.webhookEndpoints.findOne({ _id: endpointA });
    const oldSecret = t.deps.secrets.open(before!.secret);
    const rotated = await call(server, a.apiKey, 'POST', `/webhooks/${endpointA}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    const secret = rotated.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(secret).not.toBe(oldSecret);
    expect(rotated.body).toMatchObject({ id: endpointA, url: PUBLIC_URL, events: ['post.published'] });
    const until = Date.parse(rotated.body.previousSecretExpiresAt as string);
    expect(Math.abs(until - (Date.now() + 24 * 3_600_000))).toBeLessThan(10 * 60_000);
    const stored = await t.deps.db.webhookEndpoints.findOne({ _id: endpointA });
    expect(stored!.secret).not.toContain(secret.slice(6));
    expect(t.deps.secrets.open(stored!.secret)).toBe(secret);
    expect(t.deps.secrets.open(stored!.previousSecret!)).toBe(oldSecret);
    expect(stored!.previousSecretUntil!.getTime()).toBe(until);
    const listed = await call(server, a.apiKey, 'GET', '/webhooks');
    expect(listed.text).not.toContain(secret);
    expect(listed.text).not.toContain(oldSecret);
  });

  it('takes the overlap asked for, 0 for none, through MCP too', async () => {
    const client = await mcp(a.apiKey);
    const none = await tool(client, 'rotate_webhook_secret', { id: endpointA, overlapMinutes: 0 });
    expect(none.isError).toBeFalsy();
    expect(none.structuredContent).toMatchObject({
      secret: expect.stringMatching(/^whsec_/),
      previousSecretExpiresAt: null,
    });
    const stored = await t.deps.db.webhookEndpoints.findOne({ _id: endpointA });
    expect(stored!.previousSecret).toBeUndefined();
    const hour = await call(server, a.apiKey, 'POST', `/webhooks/${endpointA}/rotate-secret`, { overlapMinutes: 60 });
    expect(hour.status).toBe(200);
    expect(Math.abs(Date.parse(hour.body.previousSecretExpiresAt as string) - (Date.now() + 3_600_000))).toBeLessThan(
      10 * 60_000,
    );
  });
});

describe('sending a test event', () => {
  it('logs a pending webhook.test delivery, over REST and MCP', async () => {
    const sent = await call(server, a.apiKey, 'POST', `/webhooks/${endpointA}/test`);
    expect(sent.status, sent.text).toBe(202);
    expect(sent.body).toMatchObject({ id: expect.stringMatching(/^msg_/), event: 'webhook.test', status: 'pending' });
    const viaMcp = await tool(await mcp(a.apiKey), 'send_test_webhook', { id: endpointA });
    expect(viaMcp.structuredContent).toMatchObject({ event: 'webhook.test', status: 'pending' });
    const log = await call(server, a.apiKey, 'GET', `/webhooks/${endpointA}/deliveries`);
    const tests = (log.body.deliveries as { event: string }[]).filter((d) => d.event === 'webhook.test');
    expect(tests).toHaveLength(2);
  });
});

describe('invalid rotation and test requests', () => {
  it.each([
    ['/webhooks/not-a-uuid/rotate-secret', undefined, [['params', 'id']]],
    ['/webhooks/{a}/rotate-secret', { overlapMinutes: -1 }, [['body', 'overlapMinutes']]],
    ['/webhooks/{a}/rotate-secret', { overlapMinutes: 10_081 }, [['body', 'overlapMinutes']]],
    ['/webhooks/{a}/rotate-secret', { overlapMinutes: 'a day' }, [['body', 'overlapMinutes']]],
    ['/webhooks/not-a-uuid/test', undefined, [['params', 'id']]],
  ])('refuses POST %s %j with 400 invalid_request', async (path, body, paths) => {
    const refused = await call(server, a.apiKey, 'POST', path.replace('{a}', endpointA), body);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_request');
    expect(detailPaths(refused.body)).toEqual(paths);
  });

  it('refuses a bad overlap through MCP', async () => {
    const client = await mcp(a.apiKey);
    const error = errorOf(await tool(client, 'rotate_webhook_secret', { id: endpointA, overlapMinutes: 20_000 }));
    expect([error.code, error.details!.map((d) => d.path)]).toEqual(['invalid_request', [['overlapMinutes']]]);
    expect(errorOf(await tool(client, 'send_test_webhook', { id: 'nope' })).code).toBe('invalid_request');
  });

  it('answers 401 missing_api_key and invalid_api_key', async () => {
    for (const path of [`/webhooks/${endpointA}/rotate-secret`, `/webhooks/${endpointA}/test`]) {
      const missing = await call(server, undefined, 'POST', path);
      expect([path, missing.status, missing.body.code]).toEqual([path, 401, 'missing_api_key']);
      const wrong = await call(server, 'service_sk_not_a_real_key_000000000000', 'POST', path);
      expect([path, wrong.status, wrong.body.code]).toEqual([path, 401, 'invalid_api_key']);
    }
  });
});

describe("another workspace's endpoint", () => {
  it('cannot be rotated or tested, over REST or MCP', async () => {
    const before = await t.deps.db.webhookEndpoints.findOne({ _id: endpointA });
    const deliveries = await t.deps.db.webhookDeliveries.countDocuments({ endpointId: endpointA });
    for (const path of [`/webhooks/${endpointA}/rotate-secret`, `/webhooks/${endpointA}/test`]) {
      const answer = await call(server, b.apiKey, 'POST', path);
      expect([path, answer.status, answer.body.code]).toEqual([path, 404, 'not_found']);
    }
    const client = await mcp(b.apiKey);
    expect(errorOf(await tool(client, 'rotate_webhook_secret', { id: endpointA })).code).toBe('not_found');
    expect(errorOf(await tool(client, 'send_test_webhook', { id: endpointA })).code).toBe('not_found');
    expect(await t.deps.db.webhookEndpoints.findOne({ _id: endpointA })).toEqual(before);
    expect(await t.deps.db.webhookDeliveries.countDocuments({ endpointId: endpointA })).toBe(deliveries);
  });
});
