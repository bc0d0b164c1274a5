import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openCore, type Core } from '../../src/app/main.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { buildTenant } from '../support/factories.js';
import { startNginx, type RunningProxy } from '../../bench/support/nginx.js';
import { freePort, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';

// Two `serve --role api` processes on one database behind nginx, restarted one after the other as
// an orchestrator does (SIGTERM, start again, wait for /readyz): no request through the proxy fails.
let dir: string;
let env: Record<string, string>;
let core: Core;
let apiKey: string;
let proxy: RunningProxy | undefined;
const running = new Map<number, SpawnedPostdeck>();
const spawned: SpawnedPostdeck[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-rolling-'));
  env = {
    MONGODB_URI: inject('mongoUri'),
    MONGODB_DB: `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    DATA_DIR: path.join(dir, 'data'),
    PUBLIC_URL: 'http://127.0.0.1:9',
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // Nothing here calls TikTok or OpenAI: point both at a closed port rather than start emulators.
    TIKTOK_CLIENT_KEY: 'rolling-client-key',
    TIKTOK_CLIENT_SECRET: 'rolling-client-secret',
    TIKTOK_AUTH_BASE_URL: 'http://127.0.0.1:9',
    TIKTOK_API_BASE_URL: 'http://127.0.0.1:9',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    LOG_LEVEL: 'info',
  };
  core = await openCore(loadConfig(env, { cwd: dir }), createLogger({ level: 'silent' }));
  ({ apiKey } = await buildTenant(core.deps));
}, 240_000);

afterAll(async () => {
  await proxy?.stop();
  for (const process of spawned) if (process.child.exitCode === null) process.child.kill('SIGKILL');
  await Promise.all(spawned.map((process) => process.exited));
  await core?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `serve --role api` on `port` and waits until its /readyz answers 200. */
async function startApi(name: string, port: number, extraEnv: Record<string, string> = {}): Promise<SpawnedPostdeck> {
  const api = spawnPostdeck(name, ['serve', '--role', 'api'], { ...env, PORT: String(port), ...extraEnv });
  spawned.push(api);
  running.set(port, api);
  await waitForOk(`http://127.0.0.1:${port}/readyz`, 180_000);
  return api;
}

const read = (base: string) => fetch(`${base}/public/v1/platforms`, { headers: { authorization: `Bearer ${apiKey}` } });

describe('a draining API process', { timeout: 300_000 }, () => {
  it('answers /readyz 503 `draining` from SIGTERM on, while /healthz and requests still answer', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // A grace far longer than the test: the process is caught between "not ready" and "not listening".
    const api = await startApi('rolling-draining', port, { SHUTDOWN_READY_GRACE_MS: '600000' });
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready' });

    api.child.kill('SIGTERM');
    let ready = await fetch(`${base}/readyz`);
    for (const deadline = Date.now() + 60_000; ready.status === 200 && Date.now() < deadline; await sleep(100)) {
      ready = await fetch(`${base}/readyz`);
    }
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ code: 'not_ready', reason: 'draining', message: expect.any(String) });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await read(base)).status).toBe(200);
    expect(api.child.exitCode).toBeNull();

    api.child.kill('SIGKILL');
    await api.exited;
  });
});

// A grace is what this tests (the spawn helper sets 0 so other tests stop at once): 2 s, shorter than
// production's 5 s, is still forty times the 50 ms between the readiness checks below, and nginx here
// retries a refused connection on the other process either way.
const GRACE = { SHUTDOWN_READY_GRACE_MS: '2000' };

describe('a rolling restart behind nginx', { timeout: 600_000 }, () => {
  it('fails no request while each API process is stopped and started again in turn', async () => {
    const ports = [await freePort(), await freePort()];
    await Promise.all(ports.map((port, i) => startApi(`rolling-api-${i + 1}`, port, GRACE)));
    proxy = await startNginx(ports.map((port) => `127.0.0.1:${port}`));

    // Steady reads through the proxy: each outcome with the upstream that answered it.
    const outcomes: { status: number | string; upstream: string | null }[] = [];
    let driving = true;
    const client = async () => {
      while (driving) {
        try {
          const response = await read(proxy!.url);
          await response.arrayBuffer();
          outcomes.push({ status: response.status, upstream: response.headers.get('x-upstream') });
        } catch (error) {
          outcomes.push({ status: (error as Error).message, upstream: null });
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    // What a load balancer with active checks would see: each process's /readyz, asked directly.
    const readiness = new Map<number, string[]>(ports.map((port) => [port, []]));
    const monitor = async (port: number) => {
      while (driving) {
        const seen = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          async (response) => ((await response.json()) as { status?: string; reason?: string }).reason ?? 'ready',
          () => 'no connection',
        );
        readiness.get(port)!.push(seen);
        await sleep(50);
      }
    };
    const monitors = ports.map(monitor);
    /** Waits until the proxy has answered `count` more requests, from `port` when given. */
    const served = async (count: number, port?: number) => {
      const from = outcomes.length;
      const deadline = Date.now() + 180_000;
      const matching = () =>
        outcomes.slice(from).filter((outcome) => port === undefined || outcome.upstream === `127.0.0.1:${port}`);
      while (matching().length < count && Date.now() < deadline) await sleep(100);
      expect(matching().length).toBeGreaterThanOrEqual(count);
    };

    await served(20);
    for (const [i, port] of ports.entries()) {
      const api = running.get(port)!;
      const from = readiness.get(port)!.length;
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(0);
      // /readyz said `draining` before the process stopped taking connections.
      const seen = () => readiness.get(port)!.slice(from);
      for (const deadline = Date.now() + 60_000; !seen().includes('no connection') && Date.now() < deadline;) {
        await sleep(100);
      }
      expect(seen().slice(0, seen().indexOf('no connection'))).toContain('draining');
      await served(20); // the other one carries the load alone
      await startApi(`rolling-api-${i + 1}-again`, port, GRACE);
      await served(5, port); // back in the proxy's rotation
    }
    driving = false;
    await Promise.all([...clients, ...monitors]);

    const failed = outcomes.filter((outcome) => outcome.status !== 200);
    expect(failed, proxy.errorLog()).toEqual([]);
    for (const port of ports) {
      expect(outcomes.filter((outcome) => outcome.upstream === `127.0.0.1:${port}`).length).toBeGreaterThan(0);
    }
  });
});
