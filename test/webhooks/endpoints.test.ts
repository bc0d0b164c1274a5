import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainEvent } from '../../src/core/events/relay.js';
import { isSpecialAddress } from '../../src/core/webhooks/address-guard.js';
import { webhooksConsumer } from '../../src/core/webhooks/consumer.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { call, detailPaths, type Tenant } from '../support/posts.js';

// The webhook operations over REST and MCP with private endpoints refused (the default): registration,
// the SSRF guard, validation, authentication and workspace scoping. Deliveries: deliveries.test.ts.
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
let deliveryA: string;
beforeAll(async () => {
  a = await buildTenant(t.deps);
  b = await buildTenant(t.deps);
  const created = await call(server, a.apiKey, 'POST', '/webhooks', { url: PUBLIC_URL, events: ['post.published'] });
  expect(created.status).toBe(201);
  endpointA = created.body.id as string;
  const event = domainEvent(
    'post.published',
    { workspaceId: a.workspaceId, subjectId: 'post-a', actor: { type: 'system' } },
    new Date(),
  );
  await webhooksConsumer.handle(t.deps, event);
  deliveryA = (await t.deps.db.webhookDeliveries.findOne({ endpointId: endpointA }))!._id;
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

describe('registering webhook endpoints', () => {
  it('answers the signing secret once and stores it sealed', async () => {
    const created = await call(server, a.apiKey, 'POST', '/webhooks', {
      url: PUBLIC_URL,
      events: ['post.created', 'generation.done', 'post.created'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: PUBLIC_URL, events: ['post.created', 'generation.done'] });
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const stored = await t.deps.db.webhookEndpoints.findOne({ _id: created.body.id as string });
    expect(stored!.secret).not.toContain(secret.slice(6));
    expect(t.deps.secrets.open(stored!.secret)).toBe(secret);
    const listed = await call(server, a.apiKey, 'GET', '/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(secret);
    expect(listed.body.webhooks).toContainEqual({
      id: created.body.id,
      url: PUBLIC_URL,
      events: ['post.created', 'generation.done'],
      createdAt: expect.any(String),
    });
  });

  it('is the same operation as an MCP tool', async () => {
    const client = await mcp(a.apiKey);
    const created = await tool(client, 'create_webhook', { url: PUBLIC_URL, events: ['post.failed'] });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ url: PUBLIC_URL, secret: expect.stringMatching(/^whsec_/) });
    const listed = await tool(client, 'list_webhooks', {});
    const ids = (listed.structuredContent as { webhooks: { id: string }[] }).webhooks.map((w) => w.id);
    expect(ids).toContain((created.structuredContent as { id: string }).id);
    const log = await tool(client, 'list_webhook_deliveries', { id: endpointA });
    expect((log.structuredContent as { deliveries: { id: string }[] }).deliveries.map((d) => d.id)).toEqual([
      deliveryA,
    ]);
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://10.1.2.3/hook',
    'http://192.168.1.20/hook',
    'http://172.16.0.5/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://[fd00::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://0.0.0.0/hook',
    // IPv4 embedded in IPv6: compatible, translated, NAT64, 6to4, Teredo, ISATAP.
    'http://[::127.0.0.1]/hook',
    'http://[::ffff:0:127.0.0.1]/hook',
    'http://[64:ff9b::127.0.0.1]/hook',
    'http://[2002:7f00:1::1]/hook',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
    'http://[2606:4700::5efe:127.0.0.1]/hook',
    // Decimal, hex and octal IPv4, which the URL parser turns into 127.0.0.1.
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://0177.0.0.1/hook',
  ])('refuses %s (a private, loopback or link-local address)', async (url) => {
    const before = await t.deps.db.webhookEndpoints.countDocuments({});
    const refused = await call(server, a.apiKey, 'POST', '/webhooks', { url, events: ['post.created'] });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_request');
    expect(detailPaths(refused.body)).toEqual([['body', 'url']]);
    expect(refused.body.details![0]!.message).toMatch(/loopback, private, link-local or reserved/);
    // The refusal names the setting that allows a local receiver.
    expect(refused.body.details![0]!.message).toContain('WEBHOOKS_ALLOW_PRIVATE=true');
    expect(await t.deps.db.webhookEndpoints.countDocuments({})).toBe(before);
  });

  it('refuses a private address through MCP too', async () => {
    const client = await mcp(a.apiKey);
    const error = errorOf(
      await tool(client, 'create_webhook', { url: 'http://127.0.0.1/x', events: ['post.created'] }),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.details!.map((d) => d.path)).toEqual([['url']]);
  });

  it('tells special addresses from public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '100.64.0.1',
      '169.254.1.1',
      '192.0.2.1',
      '224.0.0.1',
      '::1',
      'fe80::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '2001:db8::1',
      '::',
      '::127.0.0.1',
      '::7f00:1',
      '::ffff:7f00:1',
      '::ffff:0:10.0.0.1',
      '64:ff9b::a00:1',
      '64:ff9b:1::1',
      '2002:a00:1::1',
      '2001:0:4136:e378::1',
      '2606:4700::5efe:127.0.0.1',
      '2606:4700::200:5efe:10.0.0.1',
      'fe80::1%eth0',
    ]) {
      expect([address, isSpecialAddress(address)]).toEqual([address, true]);
    }
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '::ffff:808:808',
      '2606:4700::5efe:8.8.8.8',
    ]) {
      expect([address, isSpecialAddress(address)]).toEqual([address, false]);
    }
  });
});

describe('invalid webhook requests', () => {
  it.each([
    [{ url: 'ftp://example.com/x', events: ['post.created'] }, [['body', 'url']]],
    [{ url: 'not a url', events: ['post.created'] }, [['body', 'url']]],
    [{ url: PUBLIC_URL, events: [] }, [['body', 'events']]],
    [{ url: PUBLIC_URL, events: ['post.deleted'] }, [['body', 'events', 0]]],
    [{ events: ['post.created'] }, [['body', 'url']]],
    [{ url: PUBLIC_URL }, [['body', 'events']]],
  ])('refuses a registration %j with 400 invalid_request', async (body, paths) => {
    const refused = await call(server, a.apiKey, 'POST', '/webhooks', body);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_request');
    expect(detailPaths(refused.body)).toEqual(paths);
  });

  it.each([
    ['DELETE', '/webhooks/not-a-uuid', [['params', 'id']]],
    ['GET', '/webhooks/not-a-uuid/deliveries', [['params', 'id']]],
    ['GET', `/webhooks/{a}/deliveries?limit=0`, [['query', 'limit']]],
    ['POST', `/webhooks/{a}/deliveries/nope/redeliver`, [['params', 'deliveryId']]],
  ])('refuses %s %s with 400 invalid_request', async (method, path, paths) => {
    const refused = await call(server, a.apiKey, method, path.replace('{a}', endpointA));
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_request');
    expect(detailPaths(refused.body)).toEqual(paths);
  });
});

describe('webhook endpoints need a key', () => {
  const routes = (): [string, string][] => [
    ['POST', '/webhooks'],
    ['GET', '/webhooks'],
    ['DELETE', `/webhooks/${endpointA}`],
    ['GET', `/webhooks/${endpointA}/deliveries`],
    ['POST', `/webhooks/${endpointA}/deliveries/${deliveryA}/redeliver`],
  ];

  it('answers 401 missing_api_key without one and invalid_api_key with a wrong one', async () => {
    for (const [method, path] of routes()) {
      const body = method === 'POST' ? { url: PUBLIC_URL, events: ['post.created'] } : undefined;
      const missing = await call(server, undefined, method, path, body);
      expect([method, path, missing.status, missing.body.code]).toEqual([method, path, 401, 'missing_api_key']);
      const wrong = await call(server, 'service_sk_not_a_real_key_000000000000', method, path, body);
      expect([method, path, wrong.status, wrong.body.code]).toEqual([method, path, 401, 'invalid_api_key']);
    }
    expect(await t.deps.db.webhookEndpoints.countDocuments({ _id: endpointA })).toBe(1);
  });
});

describe("another workspace's endpoints and deliveries", () => {
  it('are not_found over REST and not listed', async () => {
    const log = await call(server, b.apiKey, 'GET', `/webhooks/${endpointA}/deliveries`);
    expect([log.status, log.body.code]).toEqual([404, 'not_found']);
    const again = await call(server, b.apiKey, 'POST', `/webhooks/${endpointA}/deliveries/${deliveryA}/redeliver`);
    expect([again.status, again.body.code]).toEqual([404, 'not_found']);
    const removed = await call(server, b.apiKey, 'DELETE', `/webhooks/${endpointA}`);
    expect([removed.status, removed.body.code]).toEqual([404, 'not_found']);
    const listed = await call(server, b.apiKey, 'GET', '/webhooks');
    expect(listed.body.webhooks).toEqual([]);
    // Their own endpoint does not make a's delivery theirs.
    const theirs = await call(server, b.apiKey, 'POST', '/webhooks', { url: PUBLIC_URL, events: ['post.failed'] });
    const crossed = await call(
      server,
      b.apiKey,
      'POST',
      `/webhooks/${theirs.body.id as string}/deliveries/${deliveryA}/redeliver`,
    );
    expect([crossed.status, crossed.body.code]).toEqual([404, 'not_found']);
    expect(await t.deps.db.webhookEndpoints.countDocuments({ _id: endpointA })).toBe(1);
    expect(await t.deps.db.webhookDeliveries.findOne({ _id: deliveryA })).toMatchObject({
      attempts: 0,
      state: 'pending',
    });
  });

  it('are not_found through MCP', async () => {
    const client = await mcp(b.apiKey);
    expect(errorOf(await tool(client, 'list_webhook_deliveries', { id: endpointA })).code).toBe('not_found');
    expect(errorOf(await tool(client, 'redeliver_webhook', { id: endpointA, deliveryId: deliveryA })).code).toBe(
      'not_found',
    );
    expect(errorOf(await tool(client, 'delete_webhook', { id: endpointA })).code).toBe('not_found');
    const listed = await tool(client, 'list_webhooks', {});
    const ids = (listed.structuredContent as { webhooks: { id: string }[] }).webhooks.map((w) => w.id);
    expect(ids).not.toContain(endpointA);
    expect(await t.deps.db.webhookEndpoints.countDocuments({ _id: endpointA })).toBe(1);
  });
});
