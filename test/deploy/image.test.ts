import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';
import { dockerfileInstructions } from './files.js';

// The Docker image has no Go, so no embedded FerretDB: there is no Docker engine here, so the
// Dockerfile is read and the entry point is run with the environment the image sets.
const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-image-'));
const spawned: SpawnedPostdeck[] = [];

afterAll(async () => {
  for (const { child, exited } of spawned) {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The environment the Dockerfile's ENV lines set. */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of dockerfileInstructions().filter((i) => i.name === 'ENV')) {
    for (const [, key, value] of args.matchAll(/(\w+)=(\S+)/g)) env[key!] = value!;
  }
  return env;
}

describe('the Docker image', { timeout: 180_000 }, () => {
  it('sets EMBEDDED_DB=none, since it cannot build the embedded database', () => {
    expect(imageEnv()).toMatchObject({ EMBEDDED_DB: 'none', HOST: '0.0.0.0', DATA_DIR: '/data' });
  });

  it('serve without MONGODB_URI fails at once, saying to set it, and starts no database', async () => {
    const dataDir = path.join(dir, 'serve');
    const name = 'image-serve-without-mongodb';
    rmSync(path.resolve(`test-artifacts/${name}.log`), { force: true });
    const serve = spawnPostdeck(name, ['serve'], { ...imageEnv(), DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' });
    spawned.push(serve);
    expect(await Promise.race([serve.exited, sleep(30_000).then(() => 'still running')])).toBe(1);
    const log = readFileSync(path.resolve(`test-artifacts/${name}.log`), 'utf8');
    expect(log).toContain('MONGODB_URI is not set, and EMBEDDED_DB=none rules out the embedded database');
    expect(log).toContain('it has no Go to build the embedded FerretDB');
    expect(existsSync(path.join(dataDir, 'embedded-db.json'))).toBe(false);
    expect(existsSync(dataDir) ? readdirSync(dataDir).filter((f) => /ferret|mongod/.test(f)) : []).toEqual([]);
  });

  it('runs the TikTok emulator without MONGODB_URI (the emulator service needs no database)', async () => {
    const port = await freePort();
    const emulator = spawnPostdeck('image-emulator', ['emulate', 'tiktok', '--port', String(port)], {
      ...imageEnv(),
      DATA_DIR: path.join(dir, 'emulator'),
    });
    spawned.push(emulator);
    await waitForOk(`http://127.0.0.1:${port}/__control/accounts`, 120_000);
  });
});
