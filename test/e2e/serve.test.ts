import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { revokeApiKey } from '../../src/core/auth/api-keys.js';
import { loadConfig } from '../../src/config.js';
import { sendWorkerProbe } from '../../src/core/ops/worker-probe.js';
import { createLogger } from '../../src/logger.js';
import { openCore, type Core } from '../../src/app/main.js';
import { freePort, isAlive, runPostdeck, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';

// The real entry point, spawned the way `npm start` runs it, on the embedded database.
let dataDir: string;
let env: Record<string, string>;
let baseUrl: string;
let server: SpawnedPostdeck | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-e2e-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = {
    PORT: String(port),
    DATA_DIR: dataDir,
    FERRETDB_CACHE_DIR: inject('ferretCacheDir'),
    JOB_POLL_INTERVAL_MS: '200',
    LOG_LEVEL: 'info',
  };
});

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(name: string, extraEnv: Record<string, string> = {}): Promise<SpawnedPostdeck> {
  server = spawnPostdeck(name, ['serve'], { ...env, ...extraEnv });
  await waitForOk(`${baseUrl}/readyz`, 180_000);
  return server;
}

async function stop(spawned: SpawnedPostdeck): Promise<number | null> {
  spawned.child.kill('SIGTERM');
  return spawned.exited;
}

function registry(): { pid: number; uri: string } {
  return JSON.parse(readFileSync(path.join(dataDir, 'embedded-db.json'), 'utf8')) as { pid: number; uri: string };
}

/** Core on the running server's database, attached the way the admin CLI attaches (DATA_DIR's registry). */
async function withServerCore<T>(use: (core: Core) => Promise<T>): Promise<T> {
  const core = await openCore(loadConfig(env, { cwd: dataDir }), createLogger({ level: 'silent' }));
  try {
    return await use(core);
  } finally {
    await core.close();
  }
}

function listPlatforms(apiKey?: string): Promise<Response> {
  return fetch(`${baseUrl}/public/v1/platforms`, apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {});
}

async function enqueueProbe(holdMs: number): Promise<string> {
  return withServerCore(async (core) => {
    const probe = await sendWorkerProbe(core.deps, core.jobs, holdMs);
    return probe._id;
  });
}

/** Waits until the probe job has `field` set, on one attached core (opening one is the slow part). */
async function waitForProbe(probeId: string, field: 'startedAt' | 'finishedAt'): Promise<void> {
  await withServerCore(async ({ deps }) => {
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(100)) {
      const probe = await deps.db.workerProbes.findOne({ _id: probeId });
      if (probe?.[field]) return;
    }
    throw new Error(`the probe job never got ${field}`);
  });
}

describe('postdeck serve on the embedded database', { timeout: 400_000 }, () => {
  let apiKey: string;
  let workspaceId: string;

  it('serves /healthz, mints a key with the bootstrap command and lists platforms', async () => {
    await start('e2e-first-start');
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    const databasePid = registry().pid;

    const output = await runPostdeck(['admin', 'bootstrap', '--json', '--workspace', 'e2e'], env);
    const result = JSON.parse(output) as { accountId: string; workspaceId: string; userId: string; apiKey: string };
    expect(Object.keys(result).sort()).toEqual(['accountId', 'apiKey', 'userId', 'workspaceId']);
    ({ apiKey, workspaceId } = result);
    // The CLI attached to the server's database instead of starting a second one.
    expect(registry().pid).toBe(databasePid);

    const listed = await listPlatforms(apiKey);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ platforms: [] });
  });

  it('answers 401 missing_api_key and invalid_api_key for no, wrong and revoked keys', async () => {
    const missing = await listPlatforms();
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: 'missing_api_key' });

    const wrong = await listPlatforms(`service_sk_${'x'.repeat(43)}`);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'invalid_api_key' });

    const second = JSON.parse(await runPostdeck(['admin', 'bootstrap', '--json', '--workspace', 'e2e'], env)) as {
      workspaceId: string;
      apiKey: string;
      accountId: string;
    };
    expect(second.workspaceId).toBe(workspaceId);
    await withServerCore(async ({ deps }) => {
      const key = await deps.db.apiKeys.findOne({ workspaceId, _id: { $ne: '' } }, { sort: { createdAt: -1 } });
      await revokeApiKey(deps, { workspaceId, accountId: second.accountId, actor: { type: 'system' } }, key!._id);
    });
    const revoked = await listPlatforms(second.apiKey);
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toMatchObject({ code: 'invalid_api_key' });
  });

  it('drains a running job on SIGTERM, exits 0 and leaves no database process behind', async () => {
    const probeId = await enqueueProbe(3_000);
    await waitForProbe(probeId, 'startedAt');
    const databasePid = registry().pid;

    expect(await stop(server!)).toBe(0);
    expect(isAlive(databasePid)).toBe(false);

    await start('e2e-after-drain');
    const probe = await withServerCore(({ deps }) => deps.db.workerProbes.findOne({ _id: probeId }));
    expect(probe?.finishedAt).toBeInstanceOf(Date);
  });

  it('keeps data across a restart', async () => {
    // The key minted before the restarts still lists platforms.
    expect((await listPlatforms(apiKey)).status).toBe(200);
  });

  it('releases a job that outlives the drain deadline, and runs it after the restart', async () => {
    await stop(server!);
    await start('e2e-short-drain', { SHUTDOWN_DRAIN_MS: '500' });
    // Ten times the drain deadline: still running when the deadline passes, even on a busy machine.
    const probeId = await enqueueProbe(5_000);
    await waitForProbe(probeId, 'startedAt');
    const databasePid = registry().pid;
    expect(await stop(server!)).toBe(0);
    expect(isAlive(databasePid)).toBe(false);

    await start('e2e-after-release');
    await waitForProbe(probeId, 'finishedAt');
    const probe = await withServerCore(({ deps }) => deps.db.workerProbes.findOne({ _id: probeId }));
    expect(probe?.finishedAt).toBeInstanceOf(Date);
    expect(await stop(server!)).toBe(0);
  });
});
