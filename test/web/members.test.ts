import { beforeAll, describe, expect, it } from 'vitest';
import { listMembers } from '../../src/core/identity/memberships.js';
import { useTestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { WebClient, decodeEntities, hiddenValue } from '../support/web.js';

// Invitation only: the invite link is the way in.
const { t, server } = await useTestServer({ server: { app: { publicUrl: 'https://deck.example' } } });
let owner: TestUser;
let ownerBrowser: WebClient;

beforeAll(async () => {
  owner = await buildUser(t.deps, { name: 'Owner' });
  ownerBrowser = new WebClient(server);
  await ownerBrowser.signIn(owner.email, owner.password);
});

/** Creates an invite link on the members page and returns the path it points to. */
async function inviteLink(fields: Record<string, string> = {}): Promise<string> {
  await ownerBrowser.get('/members');
  const page = await ownerBrowser.post('/members/invitations', {
    workspaceId: owner.workspaceId,
    role: 'member',
    email: '',
    ...fields,
  });
  expect(page.status).toBe(201);
  expect(page.text).toContain('it is shown only once');
  const link = decodeEntities(/id="invite-link"[^>]*>([^<]+)</.exec(page.text)?.[1]?.trim() ?? '');
  expect(link).toMatch(/^https:\/\/deck\.example\/invite\?token=pdi_[A-Za-z0-9_-]{43}$/);
  return link.slice('https://deck.example'.length);
}

describe('the members page', () => {
  it('lists the members; owners get the invite form', async () => {
    const page = await ownerBrowser.get('/members');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Members of Owner&#39;s workspace');
    expect(page.text).toMatch(/<td[^>]*>Owner<span class="muted">\(you\)<\/span><\/td>/);
    expect(page.text).toContain('<label for="f-email">Email (optional)</label>');
    expect(page.text).toContain('<label for="f-role">Role</label>');
  });

  it('invites someone: they open the link signed out, sign up, and are a member', async () => {
    const path = await inviteLink();
    const listed = await ownerBrowser.get('/members');
    expect(listed.text).toContain('Open invitations');
    expect(listed.text).toContain('anyone with the link');

    const newcomer = new WebClient(server);
    const landing = await newcomer.get(path);
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('Join Owner&#39;s workspace');
    expect(landing.text).toContain('as a member');
    const token = hiddenValue(landing.text, 'invitation');
    expect(token).toMatch(/^pdi_/);

    const joined = await newcomer.post('/signup', {
      name: 'Nina New',
      email: 'nina@example.test',
      password: 'a long password',
      invitation: token,
      next: hiddenValue(landing.text, 'next'),
    });
    expect(joined.status).toBe(303);
    expect(joined.location).toBe('/members?notice=joined');
    const welcome = await newcomer.get(joined.location!);
    expect(welcome.text).toContain('You joined this workspace.');
    expect(welcome.text).toContain('Nina New');
    // A member sees the list but not the owners' tools.
    expect(welcome.text).not.toContain('Create invite link');
    expect(welcome.text).toContain('Owners of this workspace can invite people.');

    const members = await listMembers(t.deps, owner.scope);
    expect(members.map((m) => [m.name, m.role])).toContainEqual(['Nina New', 'member']);
    // The link worked once.
    expect((await new WebClient(server).get(path)).status).toBe(404);
  });

  it('lets someone who already has an account sign in and accept', async () => {
    const existing = await buildUser(t.deps, { name: 'Ed Existing' });
    const path = await inviteLink({ role: 'owner', email: existing.email.toUpperCase() });
    const browser = new WebClient(server);
    const landing = await browser.get(path);
    expect(landing.text).toContain(`href="/signin?next=${encodeURIComponent(path)}"`);
    await browser.get(`/signin?next=${encodeURIComponent(path)}`);
    const signedIn = await browser.post('/signin', { email: existing.email, password: existing.password, next: path });
    expect(signedIn.location).toBe(path);
    const accept = await browser.get(path);
    expect(accept.text).toContain('as an owner');
    const done = await browser.post('/invite', { token: hiddenValue(accept.text, 'token') });
    expect(done.status).toBe(303);
    const members = await listMembers(t.deps, owner.scope);
    expect(members.map((m) => [m.name, m.role])).toContainEqual(['Ed Existing', 'owner']);
  });

  it('withdraws an invitation: its link stops working', async () => {
    const path = await inviteLink({ email: 'later@example.test' });
    const page = await ownerBrowser.get('/members');
    const id = /action="\/members\/invitations\/([0-9a-f-]{36})\/revoke"/.exec(page.text)?.[1];
    expect(id).toBeDefined();
    const revoked = await ownerBrowser.post(`/members/invitations/${id}/revoke`, { workspaceId: owner.workspaceId });
    expect(revoked.status).toBe(303);
    expect((await ownerBrowser.get(revoked.location!)).text).toContain('The invitation was withdrawn');
    const dead = await new WebClient(server).get(path);
    expect(dead.status).toBe(404);
    expect(dead.text).toContain('This invitation link is not valid any more');
  });

  it('validates the invite form and refuses members', async () => {
    await ownerBrowser.get('/members');
    const bad = await ownerBrowser.post('/members/invitations', {
      workspaceId: owner.workspaceId,
      role: 'admin',
      email: 'nope',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="f-email-error"');
    expect(bad.text).toMatch(/id="f-role-error">Choose a role/);

    const member = await buildUser(t.deps, { name: 'Mo Member' });
    const path = await inviteLink();
    const browser = new WebClient(server);
    await browser.signIn(member.email, member.password);
    await browser.get(path);
    await browser.post('/invite', { token: hiddenValue(browser.lastPage, 'token') });
    await browser.get(`/members?ws=${owner.workspaceId}`);
    const refused = await browser.post('/members/invitations', { workspaceId: owner.workspaceId, role: 'owner' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Only an owner');
  });
});
