import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPostdeck, spawnPostdeck } from '../support/spawn.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-emulate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `postdeck emulate tiktok` and waits for the line with its URL. */
async function start(
  args: string[],
): Promise<{ url: string; output: () => string; spawned: ReturnType<typeof spawnPostdeck> }> {
  const spawned = spawnPostdeck('emulate-tiktok', ['emulate', 'tiktok', '--port', '0', ...args], {
    DATA_DIR: dir,
    PUBLIC_URL: 'http://localhost:18080',
  });
  let output = '';
  spawned.child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    if (url) return { url, output: () => output, spawned };
    if (Date.now() > deadline || spawned.child.exitCode !== null) throw new Error(`emulator did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('postdeck emulate tiktok', () => {
  it('runs standalone, says it is an emulator, keeps state in DATA_DIR and stops on SIGTERM', async () => {
    const { url, output, spawned } = await start([]);
    expect(output()).toContain('not TikTok');
    expect(output()).toContain('client key:     emulator-client-key');
    expect(output()).toContain('client secret:  emulator-client-secret');
    expect(output()).toContain('redirect URI:   http://localhost:18080/platforms/tiktok/callback');
    expect(output()).toContain(`TIKTOK_EMULATOR_URL=${url}`);
    const accounts = (await (await fetch(`${url}/__control/accounts`)).json()) as { accounts: { username: string }[] };
    expect(accounts.accounts).toEqual([expect.objectContaining({ username: 'emulated.creator' })]);
    // The consent page accepts the Postdeck callback URL.
    const consent = await fetch(
      `${url}/v2/auth/authorize/?client_key=emulator-client-key&scope=video.publish&response_type=code&state=s&redirect_uri=${encodeURIComponent('http://localhost:18080/platforms/tiktok/callback')}`,
    );
    expect(consent.status).toBe(200);
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
    const dataFile = path.join(dir, 'tiktok-emulator.json');
    expect(existsSync(dataFile)).toBe(true);
    expect((JSON.parse(readFileSync(dataFile, 'utf8')) as { accounts: unknown[] }).accounts).toHaveLength(1);
  });

  it('uses --data-file and --host, and keeps its accounts across runs', async () => {
    const dataFile = path.join(dir, 'custom', 'emu.json');
    const first = await start(['--data-file', dataFile, '--host', '127.0.0.1']);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const before = (
      (await (await fetch(`${first.url}/__control/accounts`)).json()) as { accounts: { openId: string }[] }
    ).accounts;
    first.spawned.child.kill('SIGINT');
    expect(await first.spawned.exited).toBe(0);
    const second = await start(['--data-file', dataFile, '--pull-via', 'http://api:8080/']);
    expect(second.output()).toContain('pull prefix:    http://localhost:18080/m/ (fetched from http://api:8080)');
    const after = (
      (await (await fetch(`${second.url}/__control/accounts`)).json()) as { accounts: { openId: string }[] }
    ).accounts;
    expect(after.map((a) => a.openId)).toEqual(before.map((a) => a.openId));
    second.spawned.child.kill('SIGTERM');
    expect(await second.spawned.exited).toBe(0);
  });

  it('refuses a --pull-via that is not an http address', async () => {
    const refused = runPostdeck(['emulate', 'tiktok', '--port', '0', '--pull-via', 'api:8080'], { DATA_DIR: dir });
    await expect(refused).rejects.toThrow(/--pull-via must be Postdeck's http\(s\) address/);
  });
});
