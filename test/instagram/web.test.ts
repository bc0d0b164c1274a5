import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { call } from '../support/posts.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import {
  answerInstagramConsent,
  connectedInstagram,
  startInstagramFixture,
  type InstagramFixture,
} from '../support/instagram.js';
import { buildTenant } from '../support/factories.js';
import { WebClient } from '../support/web.js';

let tiktok: TikTokFixture;
let ig: InstagramFixture;
let t: TestDatabase;
let server: TestServer;
let alice: TestUser;
let browser: WebClient;
beforeAll(async () => {
  tiktok = await startTikTokFixture();
  ig = await startInstagramFixture();
  // As `npm start` without app credentials: both clients know they talk to emulators; media at http://localhost.
  t = await openTestDatabase({
    tiktok: { ...tiktok.config, emulator: true },
    instagram: { ...ig.config, emulator: true },
  });
  server = await startTestServer(t);
  alice = await buildUser(t.deps, { name: 'Alice' });
  browser = new WebClient(server);
  await browser.signIn(alice.email, alice.password);
});
afterAll(async () => {
  await server.stop();
  await t.close();
  await tiktok.emulator.stop();
  await ig.close();
});

/** Connect Instagram through the pages: the connect form, the consent page, then the callback. */
async function connectThroughPages(accountId: string) {
  await browser.get('/platforms');
  const started = await browser.post('/platforms/instagram/connect', { workspaceId: alice.workspaceId });
  expect(started.status).toBe(303);
  const callback = await answerInstagramConsent(started.location!, accountId);
  return browser.get(`/platforms/instagram/callback${callback.search}`);
}

describe('the social accounts page with Instagram beside TikTok', () => {
  it('offers Connect for each network, names both emulators and warns that Instagram cannot reach local media', async () => {
    const page = await browser.get('/platforms');
    expect(page.status).toBe(200);
    expect(page.text).toContain('>Connect TikTok</button>');
    expect(page.text).toContain('>Connect Instagram</button>');
    expect(page.text).toMatch(/<form[^>]*action="\/platforms\/instagram\/connect"/);
    expect(page.text).toContain('Instagram emulator — posts go nowhere real.');
    expect(page.text).toContain('TikTok emulator — posts go nowhere real.');
    expect(page.text).toContain(
      'Instagram: Instagram fetches every image and video from Postdeck&#39;s public media address, http://localhost',
    );
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain(`form-action 'self' ${tiktok.emulator.url} ${ig.emulator.url}`);
  });

  it('connects an Instagram account through its consent page and lists it as Instagram', async () => {
    const account = await ig.createAccount({ username: 'web.gram', name: 'Web Gram' });
    const landed = await connectThroughPages(account.id);
    expect(landed.status).toBe(303);
    expect(landed.location).toBe(`/platforms?ws=${alice.workspaceId}&network=instagram&notice=connected`);
    const page = await browser.get(landed.location!);
    expect(page.text).toContain('The Instagram account is connected.');
    expect(page.text).toContain('<strong>Web Gram</strong>');
    expect(page.text).toContain('Images, Carousels, Reels');
    expect(page.text).toMatch(/<td[^>]*>Instagram<\/td>/);
  });

  it('lists an Instagram account over REST and MCP with provider instagram and its capabilities', async () => {
    const tenant = await buildTenant(t.deps);
    const { account } = await connectedInstagram(t, ig, tenant, { username: 'api.gram' });
    const listed = await call(server, tenant.apiKey, 'GET', '/platforms');
    expect(listed.status).toBe(200);
    expect(listed.body.platforms).toEqual([
      expect.objectContaining({
        provider: 'instagram',
        providerName: 'Instagram',
        providerAccountId: account.userId,
        displayHandle: 'api.gram',
        capabilities: ['image', 'carousel', 'reel'],
      }),
    ]);
    const client = await connectMcpOverHttp(server.url, tenant.apiKey);
    const result = (await client.callTool({ name: 'list_platforms', arguments: {} })) as CallToolResult;
    await client.close();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ platforms: listed.body.platforms });
  });

  it('refuses a personal account on the callback with the words that say how to switch', async () => {
    const account = await ig.createAccount({ username: 'private.person', accountType: 'PERSONAL' });
    const landed = await connectThroughPages(account.id);
    expect(landed.status).toBe(400);
    expect(landed.text).toContain('@private.person is a personal Instagram account');
    expect(landed.text).toContain('Switch to professional account');
  });

  it('names Instagram when its connection is cancelled, and answers 404 for a network it does not know', async () => {
    await browser.get('/platforms');
    const started = await browser.post('/platforms/instagram/connect', { workspaceId: alice.workspaceId });
    const account = await ig.createAccount();
    const callback = await answerInstagramConsent(started.location!, account.id, 'cancel');
    const landed = await browser.get(`/platforms/instagram/callback${callback.search}`);
    const page = await browser.get(landed.location!);
    expect(page.text).toContain(
      'Instagram did not connect the account: the permission request was cancelled or denied.',
    );
    await browser.get('/platforms');
    const unknown = await browser.post('/platforms/myspace/connect', { workspaceId: alice.workspaceId });
    expect(unknown.status).toBe(404);
  });
});
