import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, runPostdeck, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';

// The admin command as a user runs it: the built CLI against a spawned `postdeck serve` that runs
// the built-in TikTok emulator (no TikTok credentials).
let dataDir: string;
let env: Record<string, string>;
let baseUrl: string;
let server: SpawnedPostdeck | undefined;
let workspaceId: string;
let apiKey: string;
const LOG = path.resolve('test-artifacts/connect-emulated-serve.log');

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-connect-emulated-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = {
    PORT: String(port),
    DATA_DIR: dataDir,
    PUBLIC_URL: baseUrl,
    FERRETDB_CACHE_DIR: inject('ferretCacheDir'),
    LOG_LEVEL: 'info',
  };
  rmSync(LOG, { force: true });
  await start();
  const tenant = JSON.parse(await runPostdeck(['admin', 'bootstrap', '--json'], env)) as {
    workspaceId: string;
    apiKey: string;
  };
  ({ workspaceId, apiKey } = tenant);
}, 240_000);

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<void> {
  server = spawnPostdeck('connect-emulated-serve', ['serve'], env);
  await waitForOk(`${baseUrl}/healthz`, 180_000);
}

async function stop(): Promise<void> {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

function api(pathname: string): Promise<Response> {
  return fetch(`${baseUrl}/public/v1${pathname}`, { headers: { authorization: `Bearer ${apiKey}` } });
}

async function failure(args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const error = await runPostdeck(args, { ...env, ...extraEnv }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error).toBeInstanceOf(Error);
  return error!.message;
}

describe('postdeck admin connect-emulated-tiktok', { timeout: 240_000 }, () => {
  it('says at start that the TikTok emulator is in use and records where it runs', () => {
    expect(readFileSync(LOG, 'utf8')).toContain('TikTok emulator in use');
    const record = JSON.parse(readFileSync(path.join(dataDir, 'tiktok-emulator-url.json'), 'utf8')) as {
      apiUrl: string;
    };
    expect(record.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('connects a new emulated account through the OAuth path and prints the platform', async () => {
    const out = await runPostdeck(['admin', 'connect-emulated-tiktok', '--workspace', workspaceId, '--json'], env);
    const platform = JSON.parse(out) as { id: string; provider: string; displayHandle: string; capabilities: string[] };
    expect(platform).toMatchObject({ provider: 'tiktok', capabilities: ['video', 'photo', 'draft'] });
    expect(platform.displayHandle).toMatch(/^emulated\.[0-9a-f]{6}$/);

    const listed = (await (await api('/platforms')).json()) as { platforms: { id: string }[] };
    expect(listed.platforms.map((p) => p.id)).toContain(platform.id);
    const schema = (await (await api(`/platforms/${platform.id}/schema`)).json()) as {
      privacyLevelOptions: string[];
    };
    expect(schema.privacyLevelOptions).toContain('PUBLIC_TO_EVERYONE');
  });

  it("works with only DATA_DIR set and no --workspace, taking the server's TikTok callback from its data directory", async () => {
    const onlyDataDir = { DATA_DIR: dataDir, FERRETDB_CACHE_DIR: env.FERRETDB_CACHE_DIR! };
    // No --workspace either: the install's own (the one bootstrap made before anyone signed up).
    const out = await runPostdeck(['admin', 'connect-emulated-tiktok', '--json'], onlyDataDir);
    const platform = JSON.parse(out) as { id: string };
    const listed = (await (await api('/platforms')).json()) as { platforms: { id: string }[] };
    expect(listed.platforms.map((p) => p.id)).toContain(platform.id);
  });

  it('starts the install on the unlimited plan, and admin set-plan moves it to another', async () => {
    const usage = async () =>
      (await (await api('/usage')).json()) as {
        monthlyPosts: { allowance: number };
        imageCredits: { allowance: number };
      };
    expect((await usage()).monthlyPosts.allowance).toBe(1_000_000);
    const said = await runPostdeck(['admin', 'set-plan', '--plan', 'free'], env);
    expect(said).toContain('is on the free plan: 30 posts, 20 caption credits and 0 image credits a month.');
    expect(await usage()).toMatchObject({ monthlyPosts: { allowance: 30 }, imageCredits: { allowance: 0 } });
    await expect(runPostdeck(['admin', 'set-plan', '--plan', 'gold'], env)).rejects.toThrow(/Unknown plan "gold"/);
  });

  it('--private gives the account the private privacy options and no duet or stitch; it survives a restart', async () => {
    const out = await runPostdeck(
      ['admin', 'connect-emulated-tiktok', '--workspace', workspaceId, '--private', '--json'],
      env,
    );
    const platform = JSON.parse(out) as { id: string };
    const expected = {
      privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      disabledByCreator: { comment: false, duet: true, stitch: true },
    };
    expect(await (await api(`/platforms/${platform.id}/schema`)).json()).toMatchObject(expected);

    // The emulator's accounts and grants live in DATA_DIR: after a restart the stored tokens work.
    await stop();
    await start();
    const again = await api(`/platforms/${platform.id}/schema`);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject(expected);
  });

  it('refuses a workspace that does not exist', async () => {
    const message = await failure(['admin', 'connect-emulated-tiktok', '--workspace', 'no-such-workspace']);
    expect(message).toMatch(/exited 1: postdeck: No workspace has the id or name "no-such-workspace"/);
  });

  it('refuses when real TikTok credentials are set', async () => {
    const message = await failure(['admin', 'connect-emulated-tiktok', '--workspace', workspaceId], {
      TIKTOK_CLIENT_KEY: 'real-key',
      TIKTOK_CLIENT_SECRET: 'real-secret',
    });
    expect(message).toMatch(/exited 1: postdeck: TikTok credentials are set/);
  });

  it('asks to start Postdeck first when no server runs for the DATA_DIR', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'postdeck-no-server-'));
    try {
      const message = await failure(['admin', 'connect-emulated-tiktok', '--workspace', workspaceId], {
        DATA_DIR: empty,
      });
      expect(message).toMatch(/start Postdeck first \(npm start\)/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
