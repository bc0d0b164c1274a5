import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '../../src/core/auth/api-keys.js';
import { planCollection } from '../../src/core/insights/collect-job.js';
import { POSTING_SCOPES } from '../../src/core/providers/tiktok/config.js';
import { launchChromium } from '../support/chromium.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { startTikTokStack, type TikTokStack } from '../support/tiktok-stack.js';
import { answerConsent } from '../support/tiktok.js';
import { decodeEntities, WebClient } from '../support/web.js';

// A TikTok app without the Display API product: TikTok refuses a consent request that names one of its
// scopes (video.list, user.info.stats) with invalid_scope. TIKTOK_ANALYTICS=false lets such an install
// keep connecting accounts, without analytics, and every surface says why.
const WITHOUT_DISPLAY_API = { unapprovedScopes: ['video.list', 'user.info.stats'] };
const SCREENSHOTS = path.resolve('test-artifacts/screenshots');

/** Starts a connection through the pages and returns the consent page's URL. */
async function startThroughPages(browser: WebClient, user: TestUser): Promise<string> {
  await browser.get('/platforms');
  const started = await browser.post('/platforms/tiktok/connect', { workspaceId: user.workspaceId });
  expect(started.status).toBe(303);
  return started.location!;
}

async function signedIn(stack: TikTokStack, name: string): Promise<{ user: TestUser; browser: WebClient }> {
  const user = await buildUser(stack.t.deps, { name });
  const browser = new WebClient(stack.server);
  await browser.signIn(user.email, user.password);
  return { user, browser };
}

describe('an app without the Display API, analytics on (the default)', () => {
  let stack: TikTokStack;
  beforeAll(async () => {
    stack = await startTikTokStack({ emulatorClient: true, emulator: WITHOUT_DISPLAY_API });
  });
  afterAll(() => stack.stop());

  it('gets invalid_scope from TikTok, and /platforms names the product and the setting', async () => {
    const { user, browser } = await signedIn(stack, 'Dana');
    const consent = await fetch(await startThroughPages(browser, user), { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const callback = new URL(consent.headers.get('location')!);
    expect(callback.searchParams.get('error')).toBe('invalid_scope');
    expect(callback.searchParams.get('error_description')).toContain('video.list, user.info.stats');

    const landed = await browser.get(`/platforms/tiktok/callback${callback.search}`);
    expect(landed.location).toBe(`/platforms?ws=${user.workspaceId}&network=tiktok&notice=scope_refused`);
    const page = decodeEntities((await browser.get(landed.location!)).text);
    expect(page).toContain("TikTok refused the permissions Postdeck asked for (invalid_scope). If the server's");
    expect(page).toContain('Display API product');
    expect(page).toContain('TIKTOK_ANALYTICS=false');
    expect(await stack.t.deps.db.platforms.countDocuments({ workspaceId: user.workspaceId })).toBe(0);
  });
});

describe('TIKTOK_ANALYTICS=false', () => {
  let stack: TikTokStack;
  beforeAll(async () => {
    stack = await startTikTokStack({ emulatorClient: true, analytics: false, emulator: WITHOUT_DISPLAY_API });
  });
  afterAll(() => stack.stop());

  it('asks only for the publishing scopes, connects, and says analytics is off on every surface', async () => {
    const { user, browser } = await signedIn(stack, 'Eli');
    const account = await stack.f.createAccount({ displayName: 'Plain App', username: 'plain.app' });
    const authorizeUrl = await startThroughPages(browser, user);
    expect(new URL(authorizeUrl).searchParams.get('scope')?.split(',')).toEqual([...POSTING_SCOPES]);
    const callback = await answerConsent(authorizeUrl, { openId: account.openId });
    const landed = await browser.get(`/platforms/tiktok/callback${callback.search}`);
    expect(landed.location).toBe(`/platforms?ws=${user.workspaceId}&network=tiktok&notice=connected`);

    const { apiKey } = await mintApiKey(stack.t.deps, { ...user.scope, userId: user.user.id, name: 'off' });
    const listed = await stack.server.request('/public/v1/platforms', { apiKey });
    const [platform] = ((await listed.json()) as { platforms: { id: string; analytics: unknown }[] }).platforms;
    expect(platform!.analytics).toEqual({
      granted: false,
      missingScopes: ['video.list', 'user.info.stats'],
      reason: expect.stringContaining('turned off on this server (TIKTOK_ANALYTICS=false)') as unknown,
      fix: expect.stringContaining(
        "adds TikTok's Display API product to the app and sets TIKTOK_ANALYTICS=true",
      ) as unknown,
    });

    const page = decodeEntities((await browser.get(landed.location!)).text);
    expect(page).toContain('Analytics is turned off on this server');
    expect(page).not.toContain('not share analytics yet');
    const row = page.split('<tr').find((each) => each.includes('Plain App'))!;
    expect(row).toContain('Connected while analytics was off');
    // A reconnect would ask for the same scopes again, so none is offered for analytics.
    expect(row).not.toContain('Reconnect');

    // The collection planner leaves the account alone: no run is queued for it.
    await planCollection(stack.t.deps);
    expect(await stack.t.deps.db.insightCollectors.countDocuments({ _id: platform!.id })).toBe(0);

    await mkdir(SCREENSHOTS, { recursive: true });
    const chrome = await launchChromium();
    try {
      for (const width of [1280, 390]) {
        const tab = await chrome.newPage({ viewport: { width, height: 800 } });
        await tab.goto(`${stack.server.url}/signin`);
        await tab.getByLabel('Email').fill(user.email);
        await tab.getByLabel('Password').fill(user.password);
        await tab.getByRole('button', { name: 'Sign in' }).click();
        await tab.goto(`${stack.server.url}/platforms?ws=${user.workspaceId}`);
        await expect.poll(() => tab.getByText('Analytics is turned off on this server').isVisible()).toBe(true);
        await tab.screenshot({ path: path.join(SCREENSHOTS, `platforms-analytics-off-${width}.png`), fullPage: true });
        await tab.close();
      }
    } finally {
      await chrome.close();
    }
  }, 60_000);
});
