import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordAudit, requesterScope } from '../../src/core/audit/record.js';
import { mintApiKey } from '../../src/core/auth/api-keys.js';
import { auditLinkChange } from '../../src/core/chat/link-audit.js';
import type { ChatLinkDoc } from '../../src/core/chat/documents.js';
import { acceptInvitation, createInvitation } from '../../src/core/identity/invitations.js';
import { launchChromium } from '../support/chromium.js';
import { useTestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { buildPost } from '../support/posts.js';
import { WebClient, decodeEntities } from '../support/web.js';

const SCREENSHOTS = path.resolve('test-artifacts/screenshots');
const { t, server } = await useTestServer();
let owner: TestUser;
let member: TestUser;
let stranger: TestUser;
let browser: WebClient;

beforeAll(async () => {
  // The first to sign up owns the install, so may change plans on /usage.
  owner = await buildUser(t.deps, { name: 'Olive Owner' });
  member = await buildUser(t.deps, { name: 'Max Member' });
  stranger = await buildUser(t.deps, { name: 'Stan Stranger' });
  const { token } = await createInvitation(t.deps, owner.scope, { role: 'member' });
  await acceptInvitation(t.deps, { token, userId: member.user.id });
  browser = new WebClient(server);
  await browser.signIn(owner.email, owner.password);
});

describe('entries written by the web app', () => {
  it('revoking a key on /keys writes one api_key.revoked entry naming the person, surface web', async () => {
    const { view } = await mintApiKey(t.deps, { ...owner.scope, userId: owner.user.id, name: 'Old laptop' });
    await browser.get('/keys');
    expect((await browser.post(`/keys/${view.id}/revoke`, { workspaceId: owner.workspaceId })).status).toBe(303);
    await browser.get('/keys');
    await browser.post(`/keys/${view.id}/revoke`, { workspaceId: owner.workspaceId });
    const entries = await t.deps.db.audit.find({ workspaceId: owner.workspaceId, action: 'api_key.revoked' }).toArray();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: 'user', userId: owner.user.id },
      surface: 'web',
      subject: { type: 'api_key', id: view.id },
    });
  });

  it('changing the plan on /usage writes one plan.changed entry with from and to, surface web', async () => {
    const before = (await t.deps.db.accounts.findOne({ _id: owner.accountId }))!.plan;
    expect(before).not.toBe('team');
    await browser.get('/usage');
    expect((await browser.post('/usage/plan', { workspaceId: owner.workspaceId, plan: 'team' })).status).toBe(303);
    const entries = await t.deps.db.audit.find({ workspaceId: owner.workspaceId, action: 'plan.changed' }).toArray();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: 'user', userId: owner.user.id },
      surface: 'web',
      subject: { type: 'account', id: owner.accountId },
      details: { from: before, to: 'team' },
    });
  });
});

describe('entries of other surfaces, as the page shows them', () => {
  it('deleting a post on /posts writes one post.deleted entry naming the person, surface web', async () => {
    const draft = await buildPost(t.deps, owner.workspaceId, { content: 'To be deleted' });
    await browser.get(`/posts?ws=${owner.workspaceId}`);
    const deleted = await browser.post(`/posts/${draft._id}/delete`, {
      workspaceId: owner.workspaceId,
      confirm: 'yes',
    });
    expect(deleted.status).toBe(303);
    const entries = await t.deps.db.audit.find({ workspaceId: owner.workspaceId, action: 'post.deleted' }).toArray();
    expect(entries).toMatchObject([
      { actor: { type: 'user', userId: owner.user.id }, surface: 'web', subject: { type: 'post', id: draft._id } },
    ]);
    const page = decodeEntities((await browser.get(`/audit?ws=${owner.workspaceId}&action=post.deleted`)).text);
    expect(page).toContain('data-label="What">Deleted a post');
  });

  it('names a chat link change by its team, the person in chat and the key', async () => {
    const { view } = await mintApiKey(t.deps, { ...owner.scope, userId: owner.user.id, name: 'Slack: acme' });
    const link = {
      _id: 'slack:T0ACME',
      platform: 'slack',
      teamId: 'T0ACME',
      workspaceId: owner.workspaceId,
      apiKeyId: view.id,
      linkedByUserId: owner.user.id,
    } as ChatLinkDoc;
    const ana = { id: 'U0ANA', name: '@ana' };
    await auditLinkChange(t.deps, link, ana, 'chat.linked', { relinked: false });
    await auditLinkChange(t.deps, link, ana, 'chat.link_changed', { timeZone: 'Europe/Berlin' });
    const page = decodeEntities((await browser.get(`/audit?ws=${owner.workspaceId}`)).text);
    expect(page).toContain('data-label="What">Linked a Slack or Discord workspace');
    expect(page).toContain('Changed a chat link’s settings');
    expect(page).toContain('Slack workspace<code>T0ACME</code>');
    expect(page).toContain('@ana<span class="muted">(slack)</span>');
    expect(page).toContain('with the key “Slack: acme”');
    expect(page).toContain('Europe/Berlin');
  });

  it('shows a post published for a key as Postdeck acting as the key asked', async () => {
    const { view } = await mintApiKey(t.deps, { ...owner.scope, userId: owner.user.id, name: 'Agent key' });
    const asker = {
      actor: { type: 'api_key' as const, keyId: view.id, userId: owner.user.id },
      surface: 'mcp' as const,
    };
    await recordAudit(t.deps, requesterScope(owner.scope, asker), {
      action: 'post.published',
      subject: { type: 'post', id: 'c0ffee00-0000-4000-8000-000000000001' },
      details: { releaseId: '7301' },
    });
    const page = decodeEntities((await browser.get(`/audit?ws=${owner.workspaceId}&action=post.published`)).text);
    expect(page).toContain('data-label="What">Post published');
    expect(page).toContain('Postdeck, as asked by');
    expect(page).toContain('with the key “Agent key”');
  });
});

describe('the audit page', () => {
  it("shows an owner the workspace's entries with who, what and through which surface; linked from Members", async () => {
    await mintApiKey(t.deps, { ...owner.scope, userId: owner.user.id, name: 'Shown key', surface: 'web' });
    const page = await browser.get(`/audit?ws=${owner.workspaceId}`);
    expect(page.status).toBe(200);
    const text = decodeEntities(page.text);
    expect(text).toContain('href="/members" aria-current="page">Members</a>');
    const members = await browser.get(`/members?ws=${owner.workspaceId}`);
    expect(members.text).toContain(`href="/audit?ws=${owner.workspaceId}"`);
    expect(text).toContain('data-label="What">Created an API key');
    expect(text).toContain('Olive Owner');
    expect(text).toContain('Web app');
    expect(text).toContain('Shown key');
    expect(text).not.toContain('Stan Stranger');

    const filtered = decodeEntities((await browser.get(`/audit?ws=${owner.workspaceId}&action=plan.changed`)).text);
    expect(filtered).toContain('data-label="What">Changed the plan');
    expect(filtered).not.toContain('data-label="What">Created an API key');
  });

  it('refuses a member with 403 and hides the link from them', async () => {
    const memberBrowser = new WebClient(server);
    await memberBrowser.signIn(member.email, member.password);
    const members = await memberBrowser.get(`/members?ws=${owner.workspaceId}`);
    expect(members.text).not.toContain('href="/audit"');
    const refused = await memberBrowser.get(`/audit?ws=${owner.workspaceId}`);
    expect(refused.status).toBe(403);
    expect(decodeEntities(refused.text)).toContain("Only the workspace's owners can read its audit trail");
  });

  it('answers a workspace the person is not in as not found', async () => {
    const strangerBrowser = new WebClient(server);
    await strangerBrowser.signIn(stranger.email, stranger.password);
    const refused = await strangerBrowser.get(`/audit?ws=${owner.workspaceId}`);
    expect(refused.status).toBe(404);
    expect(refused.text).toContain('Workspace not found');
  });

  it('is drawn at 1280 and 390 px', async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const chromium = await launchChromium();
    try {
      for (const width of [1280, 390]) {
        const page = await chromium.newPage({ viewport: { width, height: 800 } });
        await page.goto(`${server.url}/signin`);
        await page.getByLabel('Email').fill(owner.email);
        await page.getByLabel('Password').fill(owner.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
        await page.goto(`${server.url}/audit?ws=${owner.workspaceId}`);
        await expect(page.getByRole('heading', { name: /Audit trail/ }).isVisible()).resolves.toBe(true);
        // Nothing is wider than the screen.
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
        await page.screenshot({ path: path.join(SCREENSHOTS, `audit-${width}.png`), fullPage: true });
        await page.close();
      }
    } finally {
      await chromium.close();
    }
  }, 90_000);
});
