import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalTikTokEmulator, type LocalTikTokEmulator } from '../../src/app/tiktok-emulator.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';

// `npm start` without TikTok credentials runs the built-in emulator. Its post pages are what
// "View in the TikTok emulator" links to, so they must keep answering after Postdeck restarts.
const dirs: string[] = [];
const running: LocalTikTokEmulator[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-emulator-port-'));
  dirs.push(dir);
  return dir;
}

/** Starts the built-in emulator as `postdeck serve` does; `lines` collects what it logged. */
async function start(dir: string, lines: string[] = [], env: Record<string, string> = {}) {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const config = loadConfig(
    { DATA_DIR: dir, PUBLIC_URL: 'http://127.0.0.1:8080', HOST: '127.0.0.1', ...env },
    { cwd: dir },
  );
  const emulator = await startLocalTikTokEmulator(config, createLogger({ level: 'info', destination }));
  running.push(emulator);
  return emulator;
}

async function stop(emulator: LocalTikTokEmulator): Promise<void> {
  running.splice(running.indexOf(emulator), 1);
  await emulator.stop();
}

describe('the built-in TikTok emulator across restarts', { timeout: 60_000 }, () => {
  it('starts on the port of its last start, so a link from before still answers', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const link = `${first.authUrl}/@emulated.creator`;
    expect((await fetch(link)).status).toBe(200);
    await stop(first);
    await expect(fetch(link)).rejects.toThrow();

    const second = await start(dir);
    expect(second.authUrl).toBe(first.authUrl);
    expect((await fetch(link)).status).toBe(200);
    await stop(second);
    expect((await start(dir)).apiUrl).toBe(first.apiUrl);
  });

  it('moves to a free port, saying so, when another program holds the kept one, and keeps the new one', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const port = new URL(first.apiUrl).port;
    await stop(first);
    const squatter = createServer();
    squatter.listen(Number(port), '127.0.0.1');
    await once(squatter, 'listening');
    try {
      const lines: string[] = [];
      const moved = await start(dir, lines);
      expect(new URL(moved.apiUrl).port).not.toBe(port);
      expect(lines.join('')).toContain('the port of its last start is taken');
      expect((await fetch(`${moved.authUrl}/@emulated.creator`)).status).toBe(200);
      await stop(moved);
      expect((await start(dir)).apiUrl).toBe(moved.apiUrl);
    } finally {
      squatter.close();
    }
  });

  it('uses TIKTOK_EMULATOR_PORT when set, and keeps no port of its own then', async () => {
    const dir = dataDir();
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const emulator = await start(dir, [], { TIKTOK_EMULATOR_PORT: String(port) });
    expect(emulator.apiUrl).toBe(`http://127.0.0.1:${port}`);
    expect(() => readFileSync(path.join(dir, 'tiktok-emulator-port.json'))).toThrow();
  });
});
