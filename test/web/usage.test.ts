import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spendCredit } from '../../src/core/credits/credits.js';
import { setAccountPlan } from '../../src/core/tenancy/create-tenant.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { WebClient, decodeEntities } from '../support/web.js';
import { launchChromium } from '../support/chromium.js';

const SCREENSHOTS = path.resolve('test-artifacts/screenshots');

let t: TestDatabase;
let server: TestServer;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  t = await openTestDatabase({
    plans: {
      free: { captionCredits: 20, imageCredits: 0, monthlyPosts: 30 },
      big: { captionCredits: 100, imageCredits: 10, monthlyPosts: 100 },
      agency: { captionCredits: 25_000, imageCredits: 2_500, monthlyPosts: 1_000_000 },
    },
  });
  server = await startTestServer(t);
  owner = await buildUser(t.deps, { name: 'Owner' });
  stranger = await buildUser(t.deps, { name: 'Stranger' });
  for (let n = 0; n < 3; n++) await spendCredit(t.deps, owner.scope, 'caption', `usage-page-${n}`);
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

/** The first day of next month, as the page prints it. */
function nextReset(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}

describe('the usage page', () => {
  it("shows each pool's used, allowance, what is left and the reset, from the header's Usage link", async () => {
    const browser = new WebClient(server);
    await browser.signIn(owner.email, owner.password);
    const page = await browser.get('/usage');
    expect(page.status).toBe(200);
    const text = decodeEntities(page.text);
    expect(text).toContain('href="/usage" aria-current="page">Usage</a>');
    expect(text).toMatch(
      /Caption credits[\s\S]*?value="3"[\s\S]*?3 of 20[\s\S]*?<td[^>]*>20<\/td>\s*<td[^>]*>17<\/td>/,
    );
    expect(text).toMatch(/Image credits[\s\S]*?0 of 0[\s\S]*?<td[^>]*>0<\/td>\s*<td[^>]*>0<\/td>/);
    expect(text).toMatch(/Posts[\s\S]*?0 of 30/);
    expect(text).toContain(`${nextReset()} 00:00 UTC`);
    expect(text).toMatch(/Plan\s*<strong>free<\/strong>/);
  });

  it('groups the digits of large figures: 1,000,000, not 1000000', async () => {
    const agency = await buildUser(t.deps, { name: 'Agency' });
    await setAccountPlan(t.deps, agency.scope, 'agency');
    for (let n = 0; n < 3; n++) await spendCredit(t.deps, agency.scope, 'caption', `usage-agency-${n}`);
    const browser = new WebClient(server);
    await browser.signIn(agency.email, agency.password);
    const text = decodeEntities((await browser.get('/usage')).text);
    expect(text).toMatch(/Caption credits[\s\S]*?3 of 25,000[\s\S]*?<td[^>]*>25,000<\/td>\s*<td[^>]*>24,997<\/td>/);
    expect(text).toMatch(/Posts[\s\S]*?0 of 1,000,000[\s\S]*?<td[^>]*>1,000,000<\/td>\s*<td[^>]*>1,000,000<\/td>/);
    // The meter keeps the plain numbers a machine reads.
    expect(text).toContain('max="25000" value="3"');
  });

  it("shows another account its own figures, never this account's", async () => {
    const browser = new WebClient(server);
    await browser.signIn(stranger.email, stranger.password);
    const text = decodeEntities((await browser.get('/usage')).text);
    expect(text).toContain('0 of 20');
    expect(text).not.toContain('3 of 20');
    // Asking for the owner's workspace by id is refused as a workspace the stranger is not in.
    const other = await browser.get(`/usage?ws=${owner.workspaceId}`);
    expect(other.status).toBe(404);
  });

  it('sends a signed-out visitor to sign in', async () => {
    const page = await new WebClient(server).get('/usage');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/signin?next=%2Fusage');
  });

  it('draws the meters in a real browser', async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      await page.goto(`${server.url}/signin`);
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill(owner.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.goto(`${server.url}/usage`);
      const meter = page.getByLabel('Caption credits used');
      expect(await meter.getAttribute('value')).toBe('3');
      expect((await meter.boundingBox())?.width).toBeGreaterThan(40);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'usage.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("lets the install's owner change an account's plan there, and no one else", async () => {
    const strangerBrowser = new WebClient(server);
    await strangerBrowser.signIn(stranger.email, stranger.password);
    expect((await strangerBrowser.get('/usage')).text).not.toContain('action="/usage/plan"');
    const refused = await strangerBrowser.post('/usage/plan', { workspaceId: stranger.workspaceId, plan: 'big' });
    expect(refused.status).toBe(403);
    expect((await t.deps.db.accounts.findOne({ _id: stranger.accountId }))?.plan).toBe('free');

    const browser = new WebClient(server);
    await browser.signIn(owner.email, owner.password);
    expect((await browser.get('/usage')).text).toContain('action="/usage/plan"');
    const changed = await browser.post('/usage/plan', { workspaceId: owner.workspaceId, plan: 'big' });
    expect(changed.status).toBe(303);
    const after = decodeEntities((await browser.get(changed.location!)).text);
    expect(after).toContain('The account is now on the big plan.');
    expect(after).toMatch(/Posts[\s\S]*?0 of 100/);
    await browser.get('/usage');
    expect((await browser.post('/usage/plan', { workspaceId: owner.workspaceId, plan: 'gold' })).status).toBe(400);
    await browser.get('/usage');
    await browser.post('/usage/plan', { workspaceId: owner.workspaceId, plan: 'free' });
  });
});
