import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTokens } from '../../src/core/providers/tiktok/connect/tokens.js';
import { getUserInfo } from '../../src/core/providers/tiktok/user-info.js';
import type { TestDatabase } from '../support/db.js';
import type { TestServer } from '../support/http.js';
import { startTikTokStack, type TikTokStack } from '../support/tiktok-stack.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { answerConsent, type TikTokFixture } from '../support/tiktok.js';
import { WebClient } from '../support/web.js';
import { connectAccount } from './support.js';

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let stack: TikTokStack;
let alice: TestUser;
let browser: WebClient;
beforeAll(async () => {
  // As `npm start` without TikTok credentials: the client knows it talks to the emulator.
  stack = await startTikTokStack({ emulatorClient: true });
  ({ f, t, server } = stack);
  alice = await buildUser(t.deps, { name: 'Alice' });
  browser = new WebClient(server);
  await browser.signIn(alice.email, alice.password);
});
afterAll(() => stack.stop());

/** Connect TikTok through the pages: the connect form, the consent page, then the callback in `client`. */
async function connectThroughPages(client: WebClient, openId: string, workspaceId = alice.workspaceId) {
  await client.get('/platforms');
  const started = await client.post('/platforms/tiktok/connect', { workspaceId });
  expect(started.status).toBe(303);
  const callback = await answerConsent(started.location!, { openId });
  return callback;
}

describe('the TikTok accounts page', () => {
  it('sends a signed-out visitor to sign in', async () => {
    const page = await new WebClient(server).get('/platforms');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/signin?next=%2Fplatforms');
  });

  it('says the emulator is in use, offers Connect TikTok, and allows the consent page as a form target', async () => {
    const page = await browser.get('/platforms');
    expect(page.status).toBe(200);
    expect(page.text).toContain('TikTok emulator — posts go nowhere real.');
    expect(page.text).toContain('No account is connected to this workspace yet.');
    expect(page.text).toMatch(/<form[^>]*action="\/platforms\/tiktok\/connect"/);
    expect(page.text).toContain('>Connect TikTok</button>');
    expect(page.text).toContain('href="/platforms" aria-current="page"');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain(`form-action 'self' ${f.emulator.url}`);
    expect(csp).toContain("default-src 'none'");
  });

  it('refuses Connect without the CSRF token', async () => {
    await browser.get('/platforms');
    const refused = await browser.post(
      '/platforms/tiktok/connect',
      { workspaceId: alice.workspaceId },
      { csrf: false },
    );
    expect(refused.status).toBe(403);
    expect(await t.deps.db.oauthStates.countDocuments({ workspaceId: alice.workspaceId })).toBe(0);
  });

  it('connects an account: TikTok consent, callback, back to the page showing it ready', async () => {
    const account = await f.createAccount({ displayName: 'Web Creator', username: 'web.creator' });
    await browser.get('/platforms');
    const started = await browser.post('/platforms/tiktok/connect', { workspaceId: alice.workspaceId });
    const authorize = new URL(started.location!);
    expect(authorize.origin + authorize.pathname).toBe(`${f.emulator.url}/v2/auth/authorize/`);
    expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const callback = await answerConsent(started.location!, { openId: account.openId });

    const landed = await browser.get(`/platforms/tiktok/callback${callback.search}`);
    expect(landed.status).toBe(303);
    expect(landed.location).toBe(`/platforms?ws=${alice.workspaceId}&network=tiktok&notice=connected`);
    const page = await browser.get(landed.location!);
    expect(page.text).toContain('The TikTok account is connected.');
    expect(page.text).toContain('<strong>Web Creator</strong>');
    expect(page.text).toContain('@web.creator');
    expect(page.text).toContain('<span class="badge">Ready</span>');
    expect(page.text).toContain('aria-label="Disconnect @web.creator"');

    // The callback cannot be replayed.
    const replay = await browser.get(`/platforms/tiktok/callback${callback.search}`);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('expired or was already used');
  });

  it('refuses a callback that arrives in another session, without spending the state', async () => {
    const account = await f.createAccount();
    const callback = await connectThroughPages(browser, account.openId);
    const otherSession = new WebClient(server);
    await otherSession.signIn(alice.email, alice.password);
    const refused = await otherSession.get(`/platforms/tiktok/callback${callback.search}`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('started in another browser session');
    const own = await browser.get(`/platforms/tiktok/callback${callback.search}`);
    expect(own.status).toBe(303);
  });

  it('shows a cancelled consent as a message on the page', async () => {
    await f.createAccount();
    await browser.get('/platforms');
    const started = await browser.post('/platforms/tiktok/connect', { workspaceId: alice.workspaceId });
    const callback = await answerConsent(started.location!, { decision: 'cancel' });
    const landed = await browser.get(`/platforms/tiktok/callback${callback.search}`);
    expect(landed.location).toBe(`/platforms?ws=${alice.workspaceId}&network=tiktok&notice=cancelled`);
    const page = await browser.get(landed.location!);
    expect(page.text).toContain('the permission request was cancelled or denied');
  });

  it('disconnects with CSRF only; the account shows as disconnected with Reconnect, and its token is revoked', async () => {
    const bob = await buildUser(t.deps, { name: 'Bob' });
    const client = new WebClient(server);
    await client.signIn(bob.email, bob.password);
    const account = await f.createAccount({ username: 'to.disconnect' });
    const platform = await connectAccount(t.deps, bob.scope, account.openId);
    const tokens = await readTokens(t.deps, platform._id);

    await client.get('/platforms');
    const forged = await client.post(
      `/platforms/${platform._id}/disconnect`,
      { workspaceId: bob.workspaceId },
      { csrf: false },
    );
    expect(forged.status).toBe(403);
    expect((await t.deps.db.platforms.findOne({ _id: platform._id }))?.disabled).toBe(false);

    await client.get('/platforms');
    const done = await client.post(`/platforms/${platform._id}/disconnect`, { workspaceId: bob.workspaceId });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/platforms?ws=${bob.workspaceId}&network=tiktok&notice=disconnected`);
    const page = await client.get(done.location!);
    expect(page.text).toContain('<span class="badge off">Disconnected</span>');
    expect(page.text).toContain('aria-label="Reconnect @to.disconnect"');
    expect(page.text).not.toContain('aria-label="Disconnect @to.disconnect"');
    await expect(getUserInfo(f.http, tokens!.accessToken)).rejects.toMatchObject({
      tiktokCode: 'access_token_invalid',
    });

    // Reconnecting through the pages revives the same record.
    const callback = await connectThroughPages(client, account.openId, bob.workspaceId);
    const landed = await client.get(`/platforms/tiktok/callback${callback.search}`);
    expect(landed.location).toBe(`/platforms?ws=${bob.workspaceId}&network=tiktok&notice=reconnected`);
    expect(await t.deps.db.platforms.findOne({ _id: platform._id })).toMatchObject({ disabled: false });

    // The audit trail: each connection and the disconnect, by Bob, on the web.
    const trail = await t.deps.db.audit.find({ 'subject.id': platform._id }).sort({ at: 1, _id: 1 }).toArray();
    const bobOnTheWeb = { actor: { type: 'user', userId: bob.user.id }, surface: 'web' };
    expect(trail).toMatchObject([
      { action: 'platform.connected', ...bobOnTheWeb, details: { reconnected: false } },
      { action: 'platform.disconnected', ...bobOnTheWeb, details: { handle: 'to.disconnect' } },
      { action: 'platform.connected', ...bobOnTheWeb, details: { reconnected: true } },
    ]);
  });

  it('shows an account needing re-authorization with Reconnect', async () => {
    const carol = await buildUser(t.deps, { name: 'Carol' });
    const client = new WebClient(server);
    await client.signIn(carol.email, carol.password);
    const account = await f.createAccount({ username: 'stale.one' });
    const platform = await connectAccount(t.deps, carol.scope, account.openId);
    await t.deps.db.platforms.updateOne({ _id: platform._id }, { $set: { refreshNeeded: true } });
    const page = await client.get('/platforms');
    expect(page.text).toContain('<span class="badge off">Needs reconnect</span>');
    expect(page.text).toContain('aria-label="Reconnect @stale.one"');
  });

  it("answers 404 for disconnecting another workspace's account, and for a workspace that is not yours", async () => {
    const dave = await buildUser(t.deps, { name: 'Dave' });
    const account = await f.createAccount();
    const platform = await connectAccount(t.deps, dave.scope, account.openId);
    await browser.get('/platforms');
    const foreign = await browser.post(`/platforms/${platform._id}/disconnect`, { workspaceId: alice.workspaceId });
    expect(foreign.status).toBe(404);
    await browser.get('/platforms');
    const notMine = await browser.post(`/platforms/${platform._id}/disconnect`, { workspaceId: dave.workspaceId });
    expect(notMine.status).toBe(404);
    expect((await t.deps.db.platforms.findOne({ _id: platform._id }))?.disabled).toBe(false);
  });
});
