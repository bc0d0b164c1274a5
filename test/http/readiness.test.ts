import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/connect.js';
import { registryPath } from '../../src/db/embedded/registry.js';
import { createHttpApp } from '../../src/http/app.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import type { ProcessPhase } from '../../src/http/system-routes.js';
import { createLogger } from '../../src/logger.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { isAlive, suspend } from '../support/spawn.js';

// /readyz through real HTTP: the process's phase, and a database of this file's own (an embedded
// FerretDB) that the tests hang and stop, checked with the same ping `serve` uses.
let t: TestDatabase;
let dir: string;
let database: DatabaseHandle;
let server: RunningHttpServer;
let phase: ProcessPhase = 'starting';

beforeAll(async () => {
  t = await openTestDatabase();
  dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-readiness-'));
  const config = loadConfig(
    { DATA_DIR: dir, EMBEDDED_DB: 'ferretdb', FERRETDB_CACHE_DIR: inject('ferretCacheDir') },
    { cwd: dir },
  );
  const logger = createLogger({ level: 'silent' });
  database = await openDatabase(config, logger);
  const app = createHttpApp({
    deps: t.deps,
    logger,
    publicUrl: 'http://localhost',
    bodyLimitBytes: 1024 * 1024,
    trustProxy: false,
    checkDatabase: () => database.ping(),
    phase: () => phase,
  });
  server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await database?.close();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function probe(name: 'readyz' | 'healthz'): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url}/${name}`);
  return { status: response.status, body: await response.json() };
}

/** The first 200 of /readyz, asked every 200 ms; the last answer when none came within `timeoutMs`. */
async function readyWithin(timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe('readyz');
    if (answer.status === 200 || Date.now() > deadline) return answer;
    await sleep(200);
  }
}

const notReady = (reason: string) => ({
  status: 503,
  body: { code: 'not_ready', reason, message: expect.any(String) },
});

/** The embedded database's own process (FerretDB), from the registry it keeps in DATA_DIR. */
const databasePid = () => (JSON.parse(readFileSync(registryPath(dir), 'utf8')) as { pid: number }).pid;

describe('/readyz', () => {
  it('answers 503 `starting` until the process is up, while /healthz answers 200', async () => {
    expect(await probe('readyz')).toEqual(notReady('starting'));
    expect(await probe('healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    phase = 'ready';
    expect(await probe('readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('answers 503 `database_unreachable` while the database hangs, and 200 once it answers again', async () => {
    const pid = databasePid();
    try {
      await suspend(pid);
      expect(await probe('readyz')).toEqual(notReady('database_unreachable'));
      expect(await probe('healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // A resumed process is scheduled when the machine gets to it: wait for the answer, not a moment.
    expect(await readyWithin(60_000)).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('answers 503 `database_unreachable` once the database is stopped', async () => {
    const pid = databasePid();
    process.kill(pid, 'SIGTERM');
    while (isAlive(pid)) await sleep(100);
    expect(await probe('readyz')).toEqual(notReady('database_unreachable'));
  });

  it('answers 503 `draining` while the process drains, however the database is', async () => {
    phase = 'draining';
    expect(await probe('readyz')).toEqual(notReady('draining'));
    expect(await probe('healthz')).toEqual({ status: 200, body: { status: 'ok' } });
  });
});
