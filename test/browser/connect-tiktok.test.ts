import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, runPostdeck, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';
import { launchChromium } from '../support/chromium.js';

// Connecting a TikTok account the way a person does: the real server (running its built-in
// TikTok emulator, since no credentials are set), Debian's Chromium on the real pages and on the
// emulator's consent page, then the API with a key of the same workspace.
const SCREENSHOTS = path.resolve('test-artifacts/screenshots');
const owner = { name: 'Tess Owner', email: 'tess@example.test', password: 'browser test password 2' };
const workspaceName = "Tess Owner's workspace";

let dataDir: string;
let baseUrl: string;
let env: Record<string, string>;
let server: SpawnedPostdeck | undefined;
let browser: Browser;
let page: Page;
let emulatorUrl: string;
let apiKey: string;
let platformId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-browser-tiktok-'));
  await mkdir(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = { PORT: String(port), DATA_DIR: dataDir, PUBLIC_URL: baseUrl, FERRETDB_CACHE_DIR: inject('ferretCacheDir') };
  server = spawnPostdeck('browser-tiktok-serve', ['serve'], { ...env, LOG_LEVEL: 'info' });
  await waitForOk(`${baseUrl}/healthz`, 180_000);
  emulatorUrl = (JSON.parse(readFileSync(path.join(dataDir, 'tiktok-emulator-url.json'), 'utf8')) as { apiUrl: string })
    .apiUrl;
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function controlApi(pathname: string, method: string, body: unknown): Promise<void> {
  const answer = await fetch(`${emulatorUrl}/__control${pathname}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.ok).toBe(true);
}

async function api(pathname: string): Promise<Response> {
  return fetch(`${baseUrl}/public/v1${pathname}`, { headers: { authorization: `Bearer ${apiKey}` } });
}

const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, name), fullPage: true });

describe('connecting a TikTok account in the browser', { timeout: 300_000 }, () => {
  it('signs up and finds the TikTok accounts page, which says the emulator is in use', async () => {
    await page.goto(`${baseUrl}/signup`);
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${baseUrl}/keys`);

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Social accounts' }).click();
    await page.waitForURL(`${baseUrl}/platforms`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Social accounts of ${workspaceName}`);
    expect(await page.getByText('TikTok emulator — posts go nowhere real.').isVisible()).toBe(true);
    await shot('platforms-empty.png');
  });

  it("passes the emulator's consent page and lands back on the page with the account ready", async () => {
    await controlApi('/accounts', 'POST', {
      openId: 'browser-creator',
      displayName: 'Browser Creator',
      username: 'browser.creator',
      privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    });
    await page.getByRole('button', { name: 'Connect TikTok', exact: true }).click();
    await page.waitForURL((url) => url.toString().startsWith(`${emulatorUrl}/v2/auth/authorize/`));
    await page.getByRole('radio', { name: 'Browser Creator (@browser.creator)' }).check();
    await shot('tiktok-emulator-consent.png');
    // Styled for a phone too: the card fills a 390 px screen and both buttons sit on it.
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await page.locator('meta[name="viewport"]').count()).toBe(1);
    for (const name of ['Authorize', 'Cancel']) {
      const box = (await page.getByRole('button', { name }).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(box.height).toBeGreaterThanOrEqual(40);
    }
    await shot('tiktok-emulator-consent-390.png');
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.getByRole('button', { name: 'Authorize' }).click();

    await page.waitForURL((url) => url.pathname === '/platforms' && url.searchParams.get('notice') === 'connected');
    await page.getByText('The TikTok account is connected.').waitFor();
    const row = page.getByRole('row', { name: /Browser Creator/ });
    expect(await row.getByText('Ready').isVisible()).toBe(true);
    expect(await row.getByText('@browser.creator').isVisible()).toBe(true);
    await shot('platforms-connected.png');
  });

  it('shows the account in GET /public/v1/platforms for an API key of that workspace, and its live schema', async () => {
    // `admin bootstrap --workspace NAME` reuses the workspace of that name and mints a key for it.
    apiKey = (
      JSON.parse(await runPostdeck(['admin', 'bootstrap', '--json', '--workspace', workspaceName], env)) as {
        apiKey: string;
      }
    ).apiKey;
    const listed = (await (await api('/platforms')).json()) as {
      platforms: { id: string; displayName: string; displayHandle: string; providerAccountId: string }[];
    };
    expect(listed.platforms).toHaveLength(1);
    expect(listed.platforms[0]).toMatchObject({
      displayName: 'Browser Creator',
      displayHandle: 'browser.creator',
      providerAccountId: 'browser-creator',
    });
    platformId = listed.platforms[0]!.id;

    const schema = await api(`/platforms/${platformId}/schema`);
    expect(schema.status).toBe(200);
    const first = (await schema.json()) as { checkedAt: string };
    expect(first).toMatchObject({
      account: { creatorNickname: 'Browser Creator' },
      privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    });

    // The creator makes the account private on TikTok: the answer is reused for half a minute (and
    // says when TikTok was asked); test/platforms/http.test.ts reads the change after that.
    await controlApi('/accounts/browser-creator', 'PATCH', {
      privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
    });
    const reused = (await (await api(`/platforms/${platformId}/schema`)).json()) as { checkedAt: string };
    expect(reused).toMatchObject({
      checkedAt: first.checkedAt,
      privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    });
  });

  it('disconnects from the page: the account leaves the API list', async () => {
    await page.goto(`${baseUrl}/platforms`);
    await page.getByRole('button', { name: 'Disconnect @browser.creator' }).click();
    await page.getByText('The TikTok account was disconnected.').waitFor();
    expect(
      await page
        .getByRole('row', { name: /Browser Creator/ })
        .getByText('Disconnected')
        .isVisible(),
    ).toBe(true);
    await shot('platforms-disconnected.png');
    expect(await (await api('/platforms')).json()).toEqual({ platforms: [] });
  });
});
