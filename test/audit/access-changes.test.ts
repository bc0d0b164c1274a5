import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditAction, AuditEntryDoc } from '../../src/core/audit/documents.js';
import { mintApiKey } from '../../src/core/auth/api-keys.js';
import { createInvitation } from '../../src/core/identity/invitations.js';
import { useTestServer } from '../support/http.js';
import { buildUser, postJson, type TestUser } from '../support/identity.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { call } from '../support/posts.js';
import { WebClient } from '../support/web.js';

// Every change of access or of where data goes writes one entry naming who made it: the key (and its
// owner) through REST and MCP, the signed-in person on the web. Keys, OAuth grants and TikTok
// connections have their own tests (endpoint.test.ts, test/device, test/mcp/oauth-protocol, test/platforms/web).
const { t, server } = await useTestServer();
/** A public address given as a literal (no DNS); its path stands for a receiver's own secret. */
const RECEIVER = 'https://8.8.8.8/hooks/receiver-path-secret';
const clients: Client[] = [];
let owner: TestUser;
let apiKey: string;
let keyId: string;
let browser: WebClient;

beforeAll(async () => {
  owner = await buildUser(t.deps, { name: 'Olive Owner' });
  const minted = await mintApiKey(t.deps, { ...owner.scope, userId: owner.user.id, name: 'agent' });
  ({ apiKey } = minted);
  keyId = minted.view.id;
  browser = new WebClient(server);
  await browser.signIn(owner.email, owner.password);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

function entriesOf(action: AuditAction, subjectId?: string): Promise<AuditEntryDoc[]> {
  const subject = subjectId === undefined ? {} : { 'subject.id': subjectId };
  return t.deps.db.audit.find({ workspaceId: owner.workspaceId, action, ...subject }).toArray();
}

const byKey = () => ({ type: 'api_key', keyId, userId: owner.user.id });
const byOwner = () => ({ type: 'user', userId: owner.user.id });

describe('webhook endpoints', () => {
  it('created and deleted through REST: one entry each naming the key, the host and never the URL', async () => {
    const created = await call(server, apiKey, 'POST', '/webhooks', { url: RECEIVER, events: ['post.published'] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const rotated = await call(server, apiKey, 'POST', `/webhooks/${id}/rotate-secret`, { overlapMinutes: 60 });
    expect(rotated.status).toBe(200);
    expect((await call(server, apiKey, 'DELETE', `/webhooks/${id}`)).status).toBe(204);
    expect((await call(server, apiKey, 'DELETE', `/webhooks/${id}`)).status).toBe(404);
    const rotations = await entriesOf('webhook.secret_rotated', id);
    expect(rotations).toMatchObject([{ actor: byKey(), surface: 'rest', subject: { type: 'webhook', id } }]);
    expect(JSON.stringify(rotations)).not.toContain(rotated.body.secret as string);
    const added = await entriesOf('webhook.created', id);
    expect(added).toMatchObject([
      {
        actor: byKey(),
        surface: 'rest',
        subject: { type: 'webhook', id },
        details: { host: '8.8.8.8', events: 'post.published' },
      },
    ]);
    expect(JSON.stringify(added)).not.toContain('receiver-path-secret');
    expect(JSON.stringify(added)).not.toContain(created.body.secret as string);
    expect(await entriesOf('webhook.deleted', id)).toMatchObject([{ actor: byKey(), surface: 'rest' }]);
  });

  it('created and deleted through MCP: one entry each naming the key, surface mcp', async () => {
    const client = await connectMcpOverHttp(server.url, apiKey);
    clients.push(client);
    const created = await client.callTool({
      name: 'create_webhook',
      arguments: { url: RECEIVER, events: ['post.failed'] },
    });
    expect(created.isError).toBeFalsy();
    const id = (created.structuredContent as { id: string }).id;
    expect((await client.callTool({ name: 'rotate_webhook_secret', arguments: { id } })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'delete_webhook', arguments: { id } })).isError).toBeFalsy();
    expect(await entriesOf('webhook.secret_rotated', id)).toMatchObject([{ actor: byKey(), surface: 'mcp' }]);
    expect(await entriesOf('webhook.created', id)).toMatchObject([{ actor: byKey(), surface: 'mcp' }]);
    expect(await entriesOf('webhook.deleted', id)).toMatchObject([{ actor: byKey(), surface: 'mcp' }]);
  });

  it('added and deleted on /webhooks: one entry each naming the person, surface web', async () => {
    const page = await browser.submit(`/webhooks?ws=${owner.workspaceId}`, '/webhooks', {
      workspaceId: owner.workspaceId,
      url: RECEIVER,
      'event:post.created': 'on',
    });
    expect(page.status).toBe(201);
    const endpoint = await t.deps.db.webhookEndpoints.findOne({ workspaceId: owner.workspaceId });
    const id = endpoint!._id;
    await browser.get(`/webhooks?ws=${owner.workspaceId}`);
    expect((await browser.post(`/webhooks/${id}/delete`, { workspaceId: owner.workspaceId })).status).toBe(303);
    expect(await entriesOf('webhook.created', id)).toMatchObject([
      { actor: byOwner(), surface: 'web', details: { host: '8.8.8.8', events: 'post.created' } },
    ]);
    expect(await entriesOf('webhook.deleted', id)).toMatchObject([{ actor: byOwner(), surface: 'web' }]);
  });
});

describe('members and invitations', () => {
  it('an invitation created and withdrawn on /members: one entry each naming the owner', async () => {
    const page = await browser.submit(`/members?ws=${owner.workspaceId}`, '/members/invitations', {
      workspaceId: owner.workspaceId,
      role: 'member',
      email: 'invited@example.test',
    });
    expect(page.status).toBe(201);
    const invitation = await t.deps.db.invitations.findOne({ workspaceId: owner.workspaceId, revokedAt: null });
    const id = invitation!._id;
    await browser.get(`/members?ws=${owner.workspaceId}`);
    const revoked = await browser.post(`/members/invitations/${id}/revoke`, { workspaceId: owner.workspaceId });
    expect(revoked.status).toBe(303);
    const created = await entriesOf('invitation.created', id);
    expect(created).toMatchObject([
      {
        actor: byOwner(),
        surface: 'web',
        subject: { type: 'invitation', id },
        details: { role: 'member', email: 'invited@example.test' },
      },
    ]);
    // The link's token is a secret: only its hash is stored, and the entry holds neither.
    expect(JSON.stringify(created)).not.toContain(invitation!.hash);
    expect(await entriesOf('invitation.revoked', id)).toMatchObject([{ actor: byOwner(), surface: 'web' }]);
  });

  it('joining through an invitation link on the web: one member.joined entry naming the person who joined', async () => {
    const page = await browser.submit(`/members?ws=${owner.workspaceId}`, '/members/invitations', {
      workspaceId: owner.workspaceId,
      role: 'owner',
    });
    const token = decodeURIComponent(/\/invite\?token=([^"&<\s]+)/.exec(page.text)![1]!);
    const joiner = await buildUser(t.deps, { name: 'Jo Joiner' });
    const theirs = new WebClient(server);
    await theirs.signIn(joiner.email, joiner.password);
    const joined = await theirs.submit(`/invite?token=${encodeURIComponent(token)}`, '/invite', { token });
    expect(joined.status).toBe(303);
    const invitation = await t.deps.db.invitations.findOne({ acceptedBy: joiner.user.id });
    expect(await entriesOf('member.joined', joiner.user.id)).toMatchObject([
      {
        actor: { type: 'user', userId: joiner.user.id },
        surface: 'web',
        subject: { type: 'member', id: joiner.user.id },
        details: { role: 'owner', via: 'invitation', invitationId: invitation!._id },
      },
    ]);
  });

  it('signing up with an invitation through POST /auth/signup: one member.joined entry, surface rest', async () => {
    const { token, invitation } = await createInvitation(t.deps, owner.scope, { role: 'member' });
    const email = `rest-joiner-${invitation.id}@example.test`;
    const signedUp = await postJson(server, '/auth/signup', {
      email,
      password: 'a long enough password',
      name: 'Rae Rest',
      invitation: token,
    });
    expect(signedUp.status).toBe(201);
    const userId = ((await signedUp.json()) as { user: { id: string } }).user.id;
    expect(await entriesOf('member.joined', userId)).toMatchObject([
      {
        actor: { type: 'user', userId },
        surface: 'rest',
        details: { role: 'member', via: 'invitation', invitationId: invitation.id },
      },
    ]);
  });
});

describe('AI settings', () => {
  const form = {
    systemPrompt: 'Be brief.',
    knowledgeBase: '',
    defaultLanguage: 'vi',
    defaultSlideLength: 'medium',
    defaultTextStyle: 'primary-sans',
    defaultCaptionSize: 'medium',
    defaultUseTopHooks: 'off',
  };

  it('saved on /settings: one entry naming the owner and what changed (the prompt by its length); saving again adds none', async () => {
    const saved = await browser.submit(`/settings?ws=${owner.workspaceId}`, '/settings', {
      workspaceId: owner.workspaceId,
      ...form,
    });
    expect(saved.status).toBe(303);
    const again = await browser.submit(`/settings?ws=${owner.workspaceId}`, '/settings', {
      workspaceId: owner.workspaceId,
      ...form,
    });
    expect(again.status).toBe(303);
    const entries = await entriesOf('ai_settings.changed');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: byOwner(),
      surface: 'web',
      subject: { type: 'workspace', id: owner.workspaceId },
    });
    expect(entries[0]!.details).toEqual({ systemPrompt: '9 characters', defaultLanguage: 'vi' });
  });
});

describe('the trail as GET /public/v1/audit answers it', () => {
  it("finds a key's changes by the key's id", async () => {
    const listed = await call(server, apiKey, 'GET', `/audit?actor=${keyId}&limit=100`);
    expect(listed.status).toBe(200);
    const actions = (listed.body as { entries: { action: string }[] }).entries.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['webhook.created', 'webhook.deleted']));
  });
});
