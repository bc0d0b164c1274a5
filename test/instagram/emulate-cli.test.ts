import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnPostdeck } from '../support/spawn.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-emulate-instagram-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('postdeck emulate instagram', () => {
  it("runs standalone for this server's callback, with one professional account, and stops on SIGTERM", async () => {
    const spawned = spawnPostdeck('emulate-instagram', ['emulate', 'instagram', '--port', '0'], {
      DATA_DIR: dir,
      PUBLIC_URL: 'http://localhost:18080',
    });
    let output = '';
    spawned.child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 60_000;
    let url: string | undefined;
    while (!url) {
      url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (!url && (Date.now() > deadline || spawned.child.exitCode !== null)) {
        throw new Error(`emulator did not start: ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output).toContain('not Instagram');
    expect(output).toContain('app id:         emulator-instagram-app-id');
    expect(output).toContain('redirect URI:   http://localhost:18080/platforms/instagram/callback');
    expect(output).toContain(`INSTAGRAM_EMULATOR_URL=${url}`);
    const accounts = (await (await fetch(`${url}/__control/accounts`)).json()) as {
      accounts: { username: string; accountType: string }[];
    };
    expect(accounts.accounts).toEqual([
      expect.objectContaining({ username: 'emulated.creator', accountType: 'BUSINESS' }),
    ]);
    const consent = new URL('/oauth/authorize', url);
    consent.search = new URLSearchParams({
      client_id: 'emulator-instagram-app-id',
      redirect_uri: 'http://localhost:18080/platforms/instagram/callback',
      response_type: 'code',
      scope: 'instagram_business_basic',
      state: 's',
    }).toString();
    expect((await fetch(consent)).status).toBe(200);
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
  });
});
