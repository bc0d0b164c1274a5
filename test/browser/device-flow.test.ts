import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';
import { launchChromium } from '../support/chromium.js';

// The acceptance test of the device flow: the real server process, the real CLI as a child
// process, and Debian's Chromium driving the real pages.
const SCREENSHOTS = path.resolve('test-artifacts/screenshots');
const SERVER_LOG = path.resolve('test-artifacts/browser-serve.log');
const owner = { name: 'Petra Owner', email: 'petra@example.test', password: 'browser test password 1' };

let dataDir: string;
let configDir: string;
let baseUrl: string;
let server: SpawnedPostdeck | undefined;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let apiKey: string;
const userCodes: string[] = [];

beforeAll(async () => {
  // Fail loudly rather than skip: this is the acceptance test.
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-browser-'));
  configDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-browser-config-'));
  rmSync(SERVER_LOG, { force: true });
  await mkdir(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = spawnPostdeck('browser-serve', ['serve'], {
    PORT: String(port),
    DATA_DIR: dataDir,
    PUBLIC_URL: baseUrl,
    FERRETDB_CACHE_DIR: inject('ferretCacheDir'),
    LOG_LEVEL: 'info',
  });
  await waitForOk(`${baseUrl}/healthz`, 180_000);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
});

/** `postdeck login` as a child process, with what it printed so far. */
interface LoginRun {
  exited: Promise<number | null>;
  stderr: () => string;
  /** The code and link the CLI printed. */
  prompt: Promise<{ code: string; link: string }>;
}

function runLogin(name: string): LoginRun {
  const run = spawnPostdeck(name, ['login', '--server', baseUrl], { POSTDECK_CONFIG_DIR: configDir, CI: 'true' });
  let stderr = '';
  const prompt = new Promise<{ code: string; link: string }>((resolve, reject) => {
    run.child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const code = /^Code: (\S+)$/m.exec(stderr)?.[1];
      const link = /^Open: (\S+)$/m.exec(stderr)?.[1];
      if (code && link) resolve({ code, link });
    });
    void run.exited.then((exit) =>
      reject(new Error(`postdeck login exited ${exit} before printing a code: ${stderr}`)),
    );
  });
  return { exited: run.exited, stderr: () => stderr, prompt };
}

/** Opens the CLI's link and checks the page shows the code and who is asking. */
async function openVerificationPage(link: string, code: string, screenshot: string): Promise<void> {
  expect(link.startsWith(`${baseUrl}/device?code=`)).toBe(true);
  await page.goto(link);
  await page.getByRole('heading', { name: 'Approve device sign-in' }).waitFor();
  expect(await page.getByLabel('Device code').textContent()).toBe(code);
  expect(await page.locator('dl.facts dd').first().textContent()).toMatch(/^postdeck CLI on /);
  const workspace = page.getByRole('radio', { name: /Petra Owner's workspace/ });
  expect(await workspace.isChecked()).toBe(true);
  await page.screenshot({ path: path.join(SCREENSHOTS, screenshot), fullPage: true });
}

describe('device login through the browser', { timeout: 300_000 }, () => {
  it('signs the first person up as the owner', async () => {
    await page.goto(`${baseUrl}/signup`);
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'signup.png'), fullPage: true });
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${baseUrl}/keys`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe("API keys of Petra Owner's workspace");
  });

  it('approves a `postdeck login` on the verification page; the CLI gets a key that lists platforms', async () => {
    const login = runLogin('browser-login-approve');
    const { code, link } = await login.prompt;
    userCodes.push(code);
    expect(code).toMatch(/^DECK-[A-Z]{4}-[A-Z]{4}$/);
    await openVerificationPage(link, code, 'device-verification-approve.png');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device approved' }).waitFor();
    expect(await page.getByText('You can return to your terminal or app.').isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'device-approved.png'), fullPage: true });

    expect(await login.exited).toBe(0);
    expect(login.stderr()).toContain("Logged in to workspace Petra Owner's workspace");
    const file = path.join(configDir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    apiKey = (JSON.parse(readFileSync(file, 'utf8')) as { apiKey: string }).apiKey;
    expect(apiKey).toMatch(/^service_sk_/);

    const listed = await fetch(`${baseUrl}/public/v1/platforms`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ platforms: [] });

    await page.goto(`${baseUrl}/keys`);
    expect(await page.getByRole('cell', { name: /^postdeck CLI on / }).count()).toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'keys.png'), fullPage: true });
  });

  it('denies a second `postdeck login`: the CLI reports access denied', async () => {
    const login = runLogin('browser-login-deny');
    const { code, link } = await login.prompt;
    userCodes.push(code);
    // This time on a phone-sized screen: the page must work there too.
    await page.setViewportSize({ width: 390, height: 844 });
    await openVerificationPage(link, code, 'device-verification-deny-mobile.png');

    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { name: 'Request denied' }).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'device-denied.png'), fullPage: true });

    expect(await login.exited).toBe(1);
    expect(login.stderr()).toMatch(/access denied/);
  });

  it('shows the AI settings and members pages', async () => {
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(`${baseUrl}/settings`);
    await page.getByLabel('System prompt').fill('Write like a friendly barista.');
    await page.getByLabel('Default slide length').selectOption('long');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The AI settings were saved.').waitFor();
    expect(await page.getByLabel('System prompt').inputValue()).toBe('Write like a friendly barista.');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'settings.png'), fullPage: true });

    await page.goto(`${baseUrl}/members`);
    await page.getByRole('button', { name: 'Create invite link' }).click();
    const link = ((await page.locator('#invite-link').textContent()) ?? '').trim();
    expect(link.startsWith(`${baseUrl}/invite?token=pdi_`)).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'members.png'), fullPage: true });
  });

  it('logged no password, session token, API key or code during the whole flow', async () => {
    const session = (await context.cookies()).find((cookie) => cookie.name === 'pd_session')?.value;
    expect(session).toMatch(/^pds_/);
    const log = readFileSync(SERVER_LOG, 'utf8');
    expect(log).toContain('"msg":"request"');
    for (const secret of [owner.password, session!, apiKey, ...userCodes]) {
      expect(log.includes(secret)).toBe(false);
    }
  });
});
