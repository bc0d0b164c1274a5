import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, runPostdeck, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';
import { launchChromium } from '../support/chromium.js';

// Connecting a TikTok and an Instagram account on one page, the way a person does: the real server with both
// built-in emulators (no app credentials set), Chromium on the pages and both consent pages, then the admin CLI.
const SCREENSHOTS = path.resolve('test-artifacts/screenshots');
const owner = { name: 'Ines Owner', email: 'ines@example.test', password: 'browser test password 3' };

let dataDir: string;
let baseUrl: string;
let env: Record<string, string>;
let server: SpawnedPostdeck | undefined;
let browser: Browser;
let page: Page;
let instagramUrl: string;
let tiktokUrl: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-browser-instagram-'));
  await mkdir(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = { PORT: String(port), DATA_DIR: dataDir, PUBLIC_URL: baseUrl, FERRETDB_CACHE_DIR: inject('ferretCacheDir') };
  server = spawnPostdeck('browser-instagram-serve', ['serve'], { ...env, LOG_LEVEL: 'info' });
  await waitForOk(`${baseUrl}/healthz`, 180_000);
  const recorded = (name: string) =>
    (JSON.parse(readFileSync(path.join(dataDir, `${name}-emulator-url.json`), 'utf8')) as { apiUrl: string }).apiUrl;
  instagramUrl = recorded('instagram');
  tiktokUrl = recorded('tiktok');
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function createAccount(emulatorUrl: string, fields: Record<string, unknown>): Promise<void> {
  const answer = await fetch(`${emulatorUrl}/__control/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  });
  expect(answer.status).toBe(201);
}

describe('connecting TikTok and Instagram accounts in the browser', { timeout: 300_000 }, () => {
  it('offers a Connect button for each network on the accounts page', async () => {
    await page.goto(`${baseUrl}/signup`);
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${baseUrl}/keys`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Social accounts' }).click();
    await page.waitForURL(`${baseUrl}/platforms`);
    expect(await page.getByRole('button', { name: 'Connect TikTok', exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Connect Instagram', exact: true }).isVisible()).toBe(true);
    expect(await page.getByText('Instagram emulator — posts go nowhere real.').isVisible()).toBe(true);
    // PUBLIC_URL is a loopback address: the page says real Instagram could not fetch media from it.
    expect(await page.getByText(/a local address Instagram cannot reach/).isVisible()).toBe(true);
  });

  it('connects one account of each network through their consent pages and shows both ready', async () => {
    await createAccount(tiktokUrl, { openId: 'tess-tok', displayName: 'Ines on TikTok', username: 'ines.tok' });
    await page.getByRole('button', { name: 'Connect TikTok', exact: true }).click();
    await page.waitForURL((url) => url.toString().startsWith(`${tiktokUrl}/v2/auth/authorize/`));
    await page.getByRole('radio', { name: 'Ines on TikTok (@ines.tok)' }).check();
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.getByText('The TikTok account is connected.').waitFor();

    await createAccount(instagramUrl, {
      username: 'ines.gram',
      name: 'Ines on Instagram',
      accountType: 'MEDIA_CREATOR',
    });
    await page.getByRole('button', { name: 'Connect Instagram', exact: true }).click();
    await page.waitForURL((url) => url.toString().startsWith(`${instagramUrl}/oauth/authorize`));
    await page.getByRole('radio', { name: 'Ines on Instagram (@ines.gram, MEDIA_CREATOR)' }).check();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.pathname === '/platforms' && url.searchParams.get('network') === 'instagram');
    await page.getByText('The Instagram account is connected.').waitFor();

    const gram = page.getByRole('row', { name: /Ines on Instagram/ });
    expect(await gram.getByRole('cell', { name: 'Instagram', exact: true }).isVisible()).toBe(true);
    expect(await gram.getByText('Ready').isVisible()).toBe(true);
    expect(await gram.getByText('Images, Carousels, Reels').isVisible()).toBe(true);
    const tok = page.getByRole('row', { name: /Ines on TikTok/ });
    expect(await tok.getByRole('cell', { name: 'TikTok', exact: true }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'platforms-tiktok-and-instagram.png'), fullPage: true });
  });

  it('connects another emulated Instagram account from the admin CLI', async () => {
    const output = await runPostdeck(['admin', 'connect-emulated-instagram', '--json'], env);
    const platform = JSON.parse(output) as { provider: string; displayHandle: string };
    expect(platform.provider).toBe('instagram');
    expect(platform.displayHandle).toMatch(/^emulated\.[0-9a-f]{6}$/);
    await page.reload();
    expect(await page.getByRole('row', { name: new RegExp(`@${platform.displayHandle}`) }).isVisible()).toBe(true);
  });
});
