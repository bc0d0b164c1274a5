import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { AlreadyRunningError, serveLockPath, takeServeLock } from '../../src/cli/serve-lock.js';
import { freePort, spawnLogged, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';

// A second start of the same install (same PORT and DATA_DIR) must fail at once, before it builds
// dist/ or attaches to the first one's database (a stale dist/: test/cli/build-once.test.ts).
const tempDirs: string[] = [];
let first: SpawnedPostdeck | undefined;
let env: Record<string, string>;
let dataDir: string;
let port: number;

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-second-start-'));
  tempDirs.push(dir);
  return dir;
}

beforeAll(async () => {
  dataDir = tempDir();
  port = await freePort();
  env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    FERRETDB_CACHE_DIR: inject('ferretCacheDir'),
    EMBEDDED_DB: 'ferretdb',
    LOG_LEVEL: 'info',
  };
}, 60_000);

afterAll(async () => {
  if (first && first.child.exitCode === null) {
    first.child.kill('SIGTERM');
    await first.exited;
  }
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('a second start of a running install', { timeout: 300_000 }, () => {
  it('fails at once with `postdeck serve`, without attaching to the database', async () => {
    first = spawnPostdeck('second-start-first', ['serve'], env);
    await waitForOk(`http://127.0.0.1:${port}/healthz`, 180_000);

    const second = spawnPostdeck('second-start-serve', ['serve'], env);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(
      `postdeck: Postdeck already runs at http://localhost:${port} with this DATA_DIR (pid ${first.child.pid})`,
    );
    // Nothing was opened: no database, no emulator, no listening.
    expect(second.output()).not.toContain('"msg":"database: ');
    expect(second.output()).not.toContain('emulator in use');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it('fails at once with `npm start`, without building', async () => {
    const npm = spawnLogged('second-start-npm', 'npm', ['start'], env);
    expect(await npm.exited).not.toBe(0);
    expect(npm.output()).toContain(`Postdeck already runs at http://localhost:${port} with this DATA_DIR`);
    expect(npm.output()).not.toContain('tsc -p tsconfig.build.json');
    expect(npm.output()).not.toContain('postdeck: building dist/');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it('starts again once the first has stopped (its lock goes with it)', async () => {
    first!.child.kill('SIGINT');
    expect(await first!.exited).toBe(0);
    expect(() => readFileSync(serveLockPath(dataDir, port))).toThrow(/ENOENT/);
  });

  it('fails at once when another program holds the port', async () => {
    const other = createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => other.listen(taken, '127.0.0.1', resolve));
    try {
      const second = spawnPostdeck('second-start-port-taken', ['serve'], { ...env, PORT: String(taken) });
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`postdeck: port ${taken} is in use by another program`);
      expect(second.output()).not.toContain('"msg":"database: ');
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

describe('the serve lock', () => {
  const configFor = (dir: string, lockPort: number) =>
    loadConfig({ DATA_DIR: dir, PORT: String(lockPort) }, { envFile: path.join(dir, 'no.env') });

  it('is taken over from a process that is gone, or from before the last boot', async () => {
    const dir = tempDir();
    const lockPort = await freePort();
    const config = configFor(dir, lockPort);
    const gone = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '']);
      child.once('exit', () => resolve(child.pid!));
    });
    const file = serveLockPath(dir, lockPort);
    writeFileSync(
      file,
      JSON.stringify({ pid: gone, url: 'http://localhost:1', bootedAt: Date.now() - os.uptime() * 1000 }),
    );
    let release = await takeServeLock(config);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, url: config.publicUrl });
    await release();

    // A live pid, but the record was written before the machine last booted: another process has that pid now.
    writeFileSync(file, JSON.stringify({ pid: process.ppid, url: 'http://localhost:1', bootedAt: 0 }));
    release = await takeServeLock(config);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid });
    await release();
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });

  it('is refused while a live process of this boot holds it', async () => {
    const dir = tempDir();
    const lockPort = await freePort();
    const file = serveLockPath(dir, lockPort);
    writeFileSync(
      file,
      JSON.stringify({ pid: process.ppid, url: 'http://localhost:9', bootedAt: Date.now() - os.uptime() * 1000 }),
    );
    const refused = await takeServeLock(configFor(dir, lockPort)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AlreadyRunningError);
    expect((refused as Error).message).toContain('Postdeck already runs at http://localhost:9 with this DATA_DIR');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.ppid });
  });
});
