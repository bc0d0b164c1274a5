import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryDoc } from '../../src/core/audit/documents.js';
import { mintApiKey } from '../../src/core/auth/api-keys.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { buildVideo, call, connectedTenant, detailPaths, postBody, type Tenant } from '../support/posts.js';
import type { TestDatabase } from '../support/db.js';
import type { TestServer } from '../support/http.js';
import { startTikTokStack, type TikTokStack } from '../support/tiktok-stack.js';
import type { TikTokFixture } from '../support/tiktok.js';

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let stack: TikTokStack;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await startTikTokStack();
  ({ f, t, server } = stack);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await stack.stop();
});

type Entry = {
  id: string;
  action: string;
  actor: { type: string; userId: string | null; keyId: string | null; chatUser: unknown };
  surface: string;
  subject: { type: string; id: string };
  at: string;
  details: Record<string, unknown>;
};

/** A connected tenant with a draft made through REST. */
async function tenantWithDraft(): Promise<{ tenant: Tenant; draftId: string; keyId: string }> {
  const { tenant, platform } = await connectedTenant(t, f);
  const video = await buildVideo(t.deps, tenant.workspaceId);
  const created = await call(
    server,
    tenant.apiKey,
    'POST',
    '/posts',
    postBody([platform._id], [video._id], { mode: 'draft' }),
  );
  expect(created.status).toBe(201);
  const draftId = (created.body as { results: { post: { root: { id: string } } }[] }).results[0]!.post.root.id;
  const key = await t.deps.db.apiKeys.findOne({ workspaceId: tenant.workspaceId, name: 'bootstrap' });
  return { tenant, draftId, keyId: key!._id };
}

function entriesOf(workspaceId: string, action: string): Promise<AuditEntryDoc[]> {
  return t.deps.db.audit.find({ workspaceId, action: action as AuditEntryDoc['action'] }).toArray();
}

/** A member (not an owner) of the tenant's workspace, with a key of their own. */
async function memberKey(tenant: Tenant): Promise<string> {
  const userId = randomUUID();
  await t.deps.db.memberships.insertOne({
    _id: randomUUID(),
    workspaceId: tenant.workspaceId,
    userId,
    role: 'member',
    createdAt: new Date(),
  });
  const { apiKey } = await mintApiKey(t.deps, { ...tenant, userId, name: 'member key' });
  return apiKey;
}

async function connect(apiKey: string): Promise<Client> {
  const client = await connectMcpOverHttp(server.url, apiKey);
  clients.push(client);
  return client;
}

describe('entries written with the change', () => {
  it('approving a draft through REST writes one post.approved entry naming the key, surface rest', async () => {
    const { tenant, draftId, keyId } = await tenantWithDraft();
    const published = await call(server, tenant.apiKey, 'POST', `/posts/${draftId}/publish`, {});
    expect(published.status).toBe(200);
    const again = await call(server, tenant.apiKey, 'POST', `/posts/${draftId}/publish`, {});
    expect(again.status).toBe(409);
    const entries = await entriesOf(tenant.workspaceId, 'post.approved');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: 'api_key', keyId, userId: tenant.userId },
      surface: 'rest',
      subject: { type: 'post', id: draftId },
      details: { mode: 'now' },
    });
  });

  it('approving a draft through MCP writes one post.approved entry, surface mcp', async () => {
    const { tenant, draftId, keyId } = await tenantWithDraft();
    const client = await connect(tenant.apiKey);
    const result = await client.callTool({ name: 'publish_post', arguments: { id: draftId, mode: 'now' } });
    expect(result.isError).toBeFalsy();
    const entries = await entriesOf(tenant.workspaceId, 'post.approved');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: { type: 'api_key', keyId }, surface: 'mcp' });
  });

  it('deleting a post writes one post.deleted entry with its state, through REST and through MCP', async () => {
    const { tenant, draftId, keyId } = await tenantWithDraft();
    expect((await call(server, tenant.apiKey, 'DELETE', `/posts/${draftId}`)).status).toBe(204);
    expect((await call(server, tenant.apiKey, 'DELETE', `/posts/${draftId}`)).status).toBe(404);
    const second = await tenantWithDraft();
    const client = await connect(second.tenant.apiKey);
    const result = await client.callTool({ name: 'delete_post', arguments: { id: second.draftId } });
    expect(result.isError).toBeFalsy();
    expect(await entriesOf(tenant.workspaceId, 'post.deleted')).toMatchObject([
      {
        actor: { type: 'api_key', keyId, userId: tenant.userId },
        surface: 'rest',
        subject: { type: 'post', id: draftId },
        details: { state: 'DRAFT', posts: 1 },
      },
    ]);
    expect(await entriesOf(second.tenant.workspaceId, 'post.deleted')).toMatchObject([
      { actor: { keyId: second.keyId }, surface: 'mcp', subject: { id: second.draftId } },
    ]);
    expect(await entriesOf(tenant.workspaceId, 'post.rejected')).toEqual([]);
  });

  it('a key minted by `admin bootstrap` is an api_key.created entry, surface cli, naming its owner', async () => {
    const { tenant, keyId } = await tenantWithDraft();
    const entries = await entriesOf(tenant.workspaceId, 'api_key.created');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: 'user', userId: tenant.userId },
      surface: 'cli',
      subject: { type: 'api_key', id: keyId },
      details: { name: 'bootstrap' },
    });
    expect(JSON.stringify(entries[0])).not.toContain(tenant.apiKey);
  });

  it('a key revoking itself (DELETE /auth/key, `postdeck logout`) writes one api_key.revoked entry, surface rest', async () => {
    const { tenant, keyId } = await tenantWithDraft();
    const revoked = await server.request('/auth/key', { method: 'DELETE', apiKey: tenant.apiKey });
    expect(revoked.status).toBe(204);
    const entries = await entriesOf(tenant.workspaceId, 'api_key.revoked');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: 'api_key', keyId, userId: tenant.userId },
      surface: 'rest',
      subject: { type: 'api_key', id: keyId },
    });
  });
});

describe('GET /public/v1/audit', () => {
  it("answers the workspace's owners with its entries newest first, none of another workspace's", async () => {
    const { tenant, draftId, keyId } = await tenantWithDraft();
    const other = await tenantWithDraft();
    expect((await call(server, tenant.apiKey, 'POST', `/posts/${draftId}/publish`, {})).status).toBe(200);
    expect((await call(server, other.tenant.apiKey, 'POST', `/posts/${other.draftId}/publish`, {})).status).toBe(200);

    const listed = await call(server, tenant.apiKey, 'GET', '/audit');
    expect(listed.status).toBe(200);
    const entries = (listed.body as { entries: Entry[] }).entries;
    // The tenant's key was minted, then its TikTok account connected (by the system), then the draft created and approved.
    expect(entries.map((e) => e.action)).toEqual([
      'post.approved',
      'post.created',
      'platform.connected',
      'api_key.created',
    ]);
    expect(entries[0]).toMatchObject({ surface: 'rest', subject: { type: 'post', id: draftId } });
    expect(entries.map((e) => e.subject.id)).not.toContain(other.draftId);

    const created = await call(server, tenant.apiKey, 'GET', '/audit?action=api_key.created');
    expect((created.body as { entries: Entry[] }).entries.map((e) => e.action)).toEqual(['api_key.created']);
    // A user's id finds what they did and what their keys did; a key's id only the key's.
    const byUser = await call(server, tenant.apiKey, 'GET', `/audit?actor=${tenant.userId}`);
    expect((byUser.body as { entries: Entry[] }).entries.map((e) => e.action)).toEqual([
      'post.approved',
      'post.created',
      'api_key.created',
    ]);
    const byKey = await call(server, tenant.apiKey, 'GET', `/audit?actor=${keyId}`);
    expect((byKey.body as { entries: Entry[] }).entries.map((e) => e.action)).toEqual([
      'post.approved',
      'post.created',
    ]);
  });

  it('pages newest first with cursor, each entry once', async () => {
    const { tenant, draftId } = await tenantWithDraft();
    expect((await call(server, tenant.apiKey, 'POST', `/posts/${draftId}/publish`, {})).status).toBe(200);
    await mintApiKey(t.deps, { ...tenant, name: 'third', surface: 'web' });
    const seen: Entry[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(server, tenant.apiKey, 'GET', `/audit?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      const body = page.body as { entries: Entry[]; nextCursor?: string };
      expect(body.entries.length).toBeLessThanOrEqual(1);
      seen.push(...body.entries);
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen.map((e) => e.action)).toEqual([
      'api_key.created',
      'post.approved',
      'post.created',
      'platform.connected',
      'api_key.created',
    ]);
    expect(new Set(seen.map((e) => e.id)).size).toBe(5);
    const times = seen.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('refuses a member who is not an owner with 403 forbidden', async () => {
    const { tenant } = await tenantWithDraft();
    const refused = await call(server, await memberKey(tenant), 'GET', '/audit');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
  });

  it('answers 400 invalid_request at the field for a bad range, action or cursor; 401 without a key', async () => {
    const { tenant } = await tenantWithDraft();
    const backwards = await call(
      server,
      tenant.apiKey,
      'GET',
      '/audit?startDate=2026-03-02T00:00:00Z&endDate=2026-03-01T00:00:00Z',
    );
    expect(backwards.status).toBe(400);
    expect(backwards.body.code).toBe('invalid_request');
    expect(detailPaths(backwards.body)).toEqual([['query', 'endDate']]);
    const wide = await call(
      server,
      tenant.apiKey,
      'GET',
      '/audit?startDate=2026-01-01T00:00:00Z&endDate=2026-06-01T00:00:00Z',
    );
    expect(detailPaths(wide.body)).toEqual([['query', 'endDate']]);
    const action = await call(server, tenant.apiKey, 'GET', '/audit?action=post.liked');
    expect(action.status).toBe(400);
    expect(detailPaths(action.body)).toEqual([['query', 'action']]);
    const cursor = await call(server, tenant.apiKey, 'GET', '/audit?cursor=not-ours');
    expect(cursor.status).toBe(400);
    expect(detailPaths(cursor.body)).toEqual([['query', 'cursor']]);
    const anonymous = await call(server, undefined, 'GET', '/audit');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('missing_api_key');
  });

  it('is in the OpenAPI document', async () => {
    const doc = await call(server, undefined, 'GET', '/openapi.json');
    const operation = (doc.body as { paths: Record<string, { get?: { operationId?: string } }> }).paths[
      '/public/v1/audit'
    ];
    expect(operation?.get).toBeDefined();
  });
});

describe('the list_audit_entries tool', () => {
  it('gives an owner the entries and refuses a member with forbidden; bad input is an error at its field', async () => {
    const { tenant } = await tenantWithDraft();
    const owner = await connect(tenant.apiKey);
    const listed = await owner.callTool({ name: 'list_audit_entries', arguments: { action: 'api_key.created' } });
    expect(listed.isError).toBeFalsy();
    const entries = (listed.structuredContent as { entries: Entry[] }).entries;
    expect(entries.map((e) => [e.action, e.surface])).toEqual([['api_key.created', 'cli']]);

    const member = await connect(await memberKey(tenant));
    const refused = await member.callTool({ name: 'list_audit_entries', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('forbidden');

    const invalid = await owner.callTool({ name: 'list_audit_entries', arguments: { limit: 0 } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('invalid_request');
  });
});
