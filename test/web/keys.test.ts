import { beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '../../src/core/auth/api-keys.js';
import { acceptInvitation, createInvitation } from '../../src/core/identity/invitations.js';
import { useTestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { WebClient } from '../support/web.js';

const { t, server } = await useTestServer();
let alice: TestUser;
let bob: TestUser;
let browser: WebClient;

beforeAll(async () => {
  alice = await buildUser(t.deps, { name: 'Alice' });
  bob = await buildUser(t.deps, { name: 'Bob' });
  browser = new WebClient(server);
  await browser.signIn(alice.email, alice.password);
});

function mint(user: TestUser, name: string) {
  return mintApiKey(t.deps, { workspaceId: user.workspaceId, accountId: user.accountId, userId: user.user.id, name });
}

function listPlatforms(apiKey: string): Promise<Response> {
  return server.request('/public/v1/platforms', { apiKey });
}

describe('the keys page', () => {
  it('lists the workspace keys by name and prefix, never the secret', async () => {
    const { apiKey, view } = await mint(alice, 'Laptop <script>');
    const page = await browser.get('/keys');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Laptop &#60;script&#62;');
    expect(page.text).toContain(`<code>${view.prefix}…</code>`);
    expect(page.text).not.toContain(apiKey);
    expect(page.text).toContain(`<time datetime="${view.createdAt.toISOString()}">`);
    expect(page.text).toMatch(/Never/);
  });

  it('revokes a key: the next API call with it answers 401 invalid_api_key', async () => {
    const { apiKey, view } = await mint(alice, 'To revoke');
    expect((await listPlatforms(apiKey)).status).toBe(200);

    await browser.get('/keys');
    const revoked = await browser.post(`/keys/${view.id}/revoke`, { workspaceId: alice.workspaceId });
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe(`/keys?ws=${alice.workspaceId}&notice=revoked`);

    const answer = await listPlatforms(apiKey);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ code: 'invalid_api_key' });

    const page = await browser.get(revoked.location!);
    expect(page.text).toContain('The key was revoked.');
    expect(page.text).toMatch(/role="status"/);
    expect(page.text).toMatch(/<td[^>]*>To revoke<\/td>[\s\S]*?Revoked/);
  });

  it('lets a member revoke a key of the workspace too', async () => {
    const { token } = await createInvitation(t.deps, alice.scope, { role: 'member' });
    await acceptInvitation(t.deps, { token, userId: bob.user.id });
    const { apiKey, view } = await mint(alice, 'Leaked');
    const member = new WebClient(server);
    await member.signIn(bob.email, bob.password);
    await member.get(`/keys?ws=${alice.workspaceId}`);
    expect((await member.post(`/keys/${view.id}/revoke`, { workspaceId: alice.workspaceId })).status).toBe(303);
    expect((await listPlatforms(apiKey)).status).toBe(401);
  });
});

describe('another workspace', () => {
  it('answers 404 for a workspace the user does not belong to, on every page', async () => {
    const stranger = await buildUser(t.deps, { name: 'Stranger' });
    for (const path of ['/keys', '/settings', '/members', '/device']) {
      for (const ws of [stranger.workspaceId, crypto.randomUUID(), 'not-a-uuid']) {
        const page = await browser.get(`${path}?ws=${ws}`);
        expect({ path, ws, status: page.status }).toEqual({ path, ws, status: 404 });
        expect(page.text).toContain('Workspace not found');
        expect(page.text).not.toContain('Stranger');
      }
    }
  });

  it('cannot revoke a key of another workspace, by its id or by naming that workspace', async () => {
    const { apiKey, view } = await mint(bob, 'Bob only');
    await browser.get('/keys');
    const viaOwn = await browser.post(`/keys/${view.id}/revoke`, { workspaceId: alice.workspaceId });
    expect(viaOwn.status).toBe(404);
    await browser.get('/keys');
    const viaTheirs = await browser.post(`/keys/${view.id}/revoke`, { workspaceId: bob.workspaceId });
    expect(viaTheirs.status).toBe(404);
    expect((await listPlatforms(apiKey)).status).toBe(200);
  });

  it('remembers a chosen workspace, and ignores a cookie naming someone else’s', async () => {
    // Alice became a member of nothing else; Bob's workspace is not hers.
    const carol = await buildUser(t.deps, { name: 'Carol' });
    const { token } = await createInvitation(t.deps, carol.scope, { role: 'member' });
    await acceptInvitation(t.deps, { token, userId: alice.user.id });

    const chosen = await browser.get(`/keys?ws=${carol.workspaceId}`);
    expect(chosen.text).toContain('API keys of Carol&#39;s workspace');
    expect((await browser.get('/keys')).text).toContain('API keys of Carol&#39;s workspace');

    browser.cookies.set('pd_ws', bob.workspaceId);
    const page = await browser.get('/keys');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Bob&#39;s workspace');
    expect(page.text).toMatch(/<select id="ws-switch" name="ws">/);
  });
});
