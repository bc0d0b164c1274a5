import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, runPostdeck, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';
import { answerConsent } from '../support/tiktok.js';
import type { TestServer } from '../support/http.js';
import { hiddenValue, WebClient } from '../support/web.js';

// What the compose file's api and worker do: `postdeck serve` pointed at a TikTok emulator that runs
// as its own process (`postdeck emulate tiktok`), reached by the server at one address and by the
// browser at another, instead of starting an emulator of its own.
let emulatorDir: string;
let dataDir: string;
let baseUrl: string;
let emulatorPort: number;
let env: Record<string, string>;
const spawned: SpawnedPostdeck[] = [];
const LOG = path.resolve('test-artifacts/external-emulator-serve.log');

beforeAll(async () => {
  emulatorDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-ext-emulator-'));
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-ext-server-'));
  const port = await freePort();
  emulatorPort = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const emulator = ['emulate', 'tiktok', '--port', String(emulatorPort), '--host', '127.0.0.1'];
  spawned.push(
    spawnPostdeck('external-emulator', [...emulator, '--data-file', path.join(emulatorDir, 'state.json')], {
      DATA_DIR: emulatorDir,
      PUBLIC_URL: baseUrl,
    }),
  );
  await waitForOk(`http://127.0.0.1:${emulatorPort}/__control/accounts`, 120_000);
  env = {
    PORT: String(port),
    DATA_DIR: dataDir,
    PUBLIC_URL: baseUrl,
    FERRETDB_CACHE_DIR: inject('ferretCacheDir'),
    LOG_LEVEL: 'info',
    TIKTOK_EMULATOR_URL: `http://127.0.0.1:${emulatorPort}`,
    TIKTOK_EMULATOR_PUBLIC_URL: `http://localhost:${emulatorPort}`,
  };
  rmSync(LOG, { force: true });
  spawned.push(spawnPostdeck('external-emulator-serve', ['serve'], env));
  await waitForOk(`${baseUrl}/healthz`, 180_000);
}, 240_000);

afterAll(async () => {
  for (const { child, exited } of spawned.reverse()) {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
  rmSync(emulatorDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('postdeck serve with TIKTOK_EMULATOR_URL', { timeout: 60_000 }, () => {
  it('starts no TikTok emulator of its own', () => {
    const log = readFileSync(LOG, 'utf8');
    expect(log).toContain('TikTok emulator in use (TIKTOK_EMULATOR_URL)');
    expect(log).not.toContain('no TIKTOK_CLIENT_KEY set');
    expect(existsSync(path.join(dataDir, 'tiktok-emulator.json'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'tiktok-emulator-url.json'))).toBe(false);
  });

  it('connects an account through the pages: the consent page at the browser address, the code exchanged at the server one', async () => {
    const browser = new WebClient({
      request: (pathname: string, init?: RequestInit) => fetch(`${baseUrl}${pathname}`, init),
    } as TestServer);
    await browser.get('/signup');
    const owner = { name: 'Olive Owner', email: 'olive@example.com', password: 'correct horse battery' };
    expect((await browser.post('/signup', { ...owner, next: '/platforms' })).status).toBe(303);
    const page = await browser.get('/platforms');
    expect(page.text).toContain('TikTok emulator — posts go nowhere real.');

    const started = await browser.post('/platforms/tiktok/connect', {
      workspaceId: hiddenValue(page.text, 'workspaceId'),
    });
    expect(started.status).toBe(303);
    expect(started.location).toMatch(new RegExp(`^http://localhost:${emulatorPort}/v2/auth/authorize/\\?`));
    const emulated = (await (await fetch(`${env.TIKTOK_EMULATOR_URL}/__control/accounts`)).json()) as {
      accounts: { openId: string }[];
    };
    const callback = await answerConsent(started.location!, { openId: emulated.accounts[0]!.openId });
    const landed = await browser.get(`/platforms/tiktok/callback${callback.search}`);
    expect(landed.location).toMatch(/notice=connected$/);
    expect((await browser.get(landed.location!)).text).toContain('@emulated.creator');
    // The grant lives in the external emulator's state file.
    const state = JSON.parse(readFileSync(path.join(emulatorDir, 'state.json'), 'utf8')) as { grants: unknown[] };
    expect(state.grants).toHaveLength(1);
  });

  it('admin connect-emulated-tiktok uses the same emulator', async () => {
    const accounts = async () =>
      ((await (await fetch(`${env.TIKTOK_EMULATOR_URL}/__control/accounts`)).json()) as { accounts: unknown[] })
        .accounts.length;
    const before = await accounts();
    const out = await runPostdeck(['admin', 'connect-emulated-tiktok', '--json'], env);
    expect(JSON.parse(out)).toMatchObject({ provider: 'tiktok' });
    expect(await accounts()).toBe(before + 1);
  });

  it('refuses to start, saying what to do, when no emulator answers there', async () => {
    const closed = await freePort();
    const name = 'external-emulator-missing';
    rmSync(path.resolve(`test-artifacts/${name}.log`), { force: true });
    const serve = spawnPostdeck(name, ['serve'], {
      ...env,
      PORT: '0',
      TIKTOK_EMULATOR_URL: `http://127.0.0.1:${closed}`,
    });
    spawned.push(serve);
    const code = await Promise.race([serve.exited, sleep(20_000).then(() => 'still running')]);
    expect(code).toBe(1);
    const log = readFileSync(path.resolve(`test-artifacts/${name}.log`), 'utf8');
    expect(log).toContain(`No TikTok emulator answers at TIKTOK_EMULATOR_URL=http://127.0.0.1:${closed}`);
    expect(log).toContain('docker compose --profile emulator up');
  });
});
