import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { saveCredentials } from '../../src/cli/credentials.js';
import { ENTRY } from '../support/spawn.js';

// The Docker section says `cp .env.example .env`; the same file in a checkout must leave every
// command working, its empty values meaning "the default" as they do in the real environment.
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `postdeck <args>` in `cwd` with nothing of Postdeck's in the environment but the config dir. */
async function run(cwd: string, args: string[], configDir: string) {
  const child = spawn(process.execPath, [ENTRY, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, POSTDECK_CONFIG_DIR: configDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

describe('a checkout with `cp .env.example .env`', () => {
  it('runs postdeck commands without configuration errors', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'postdeck-env-example-'));
    dirs.push(cwd);
    copyFileSync(path.resolve('.env.example'), path.join(cwd, '.env'));
    const configDir = path.join(cwd, 'config');
    const apiKey = 'service_sk_envexample0000000000000000';
    await saveCredentials(configDir, {
      // Port 9 (discard) on loopback: nothing answers, whatever else runs on this machine.
      server: 'http://127.0.0.1:9',
      apiKey,
      workspaceId: 'w1',
      workspaceName: 'Env Example',
      savedAt: new Date().toISOString(),
    });

    const key = await run(cwd, ['whoami', '--show-key'], configDir);
    expect(key.stderr).not.toContain('Invalid configuration');
    expect(key).toMatchObject({ code: 0, stdout: `${apiKey}\n` });

    // With no server to ask, whoami gets as far as the request: the configuration was accepted.
    const whoami = await run(cwd, ['whoami'], configDir);
    expect(whoami.stderr).not.toContain('Invalid configuration');
    expect(whoami.stderr).toContain('Is it running (npm start)?');
  });
});
