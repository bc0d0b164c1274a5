import { spawn } from 'node:child_process';
import { mkdtempSync, statSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { credentialsPath, loadCredentials } from '../../src/cli/credentials.js';
import { useTestServer } from '../support/http.js';
import { ENTRY, freePort, runPostdeck } from '../support/spawn.js';

const { server } = await useTestServer();
let configDir: string;
let session: { token: string; workspaceId: string };

beforeAll(async () => {
  configDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-cli-'));
  const response = await server.request('/auth/signup', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@example.com', password: 'correct horse battery', name: 'Owner' }),
  });
  session = (await response.json()) as { token: string; workspaceId: string };
});

const env = () => ({ POSTDECK_CONFIG_DIR: configDir, CI: 'true' });

/** Runs `postdeck login`, calling `onCode` with the user code as soon as the CLI prints it. */
function runLogin(onCode: (code: string) => Promise<void>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [ENTRY, 'login', '--server', server.url], {
    env: { ...process.env, ...env() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let seen = false;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const match = /Code: (\S+)/.exec(stderr);
    if (match?.[1] && !seen) {
      seen = true;
      void onCode(match[1]);
    }
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

function decide(action: 'approve' | 'deny', userCode: string): Promise<Response> {
  return server.request(`/auth/device/${action}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${session.token}`,
      'x-organization-id': session.workspaceId,
    },
    body: JSON.stringify({ userCode }),
  });
}

describe('postdeck login, whoami and logout', { timeout: 60_000 }, () => {
  it('stores the approved key with 0600 permissions, and whoami names the workspace', async () => {
    const result = await runLogin(async (code) => {
      expect((await decide('approve', code)).status).toBe(200);
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Logged in to workspace');
    expect(statSync(credentialsPath(configDir)).mode & 0o777).toBe(0o600);

    const credentials = await loadCredentials(configDir);
    expect(credentials?.workspaceId).toBe(session.workspaceId);
    expect((await server.request('/public/v1/platforms', { apiKey: credentials!.apiKey })).status).toBe(200);

    const whoami = await runPostdeck(['whoami'], env());
    expect(whoami).toContain(session.workspaceId);
    expect(whoami).not.toContain(credentials!.apiKey);
    expect(await runPostdeck(['whoami', '--show-key'], env())).toBe(`${credentials!.apiKey}\n`);
  });

  it('names the server and the cause when it cannot reach it', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(runPostdeck(['login', '--server', closed], env())).rejects.toThrow(
      `could not reach the Postdeck server at ${closed}: the connection was refused (nothing listens there)`,
    );
  });

  it('logout revokes the key on the server and forgets it', async () => {
    const credentials = await loadCredentials(configDir);
    await runPostdeck(['logout'], env());
    expect(existsSync(credentialsPath(configDir))).toBe(false);
    const response = await server.request('/public/v1/platforms', { apiKey: credentials!.apiKey });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'invalid_api_key' });
    await expect(runPostdeck(['whoami'], env())).rejects.toThrow(/not logged in/);
  });

  it('reports access denied and exits 1 when the login is refused', async () => {
    const result = await runLogin(async (code) => {
      expect((await decide('deny', code)).status).toBe(200);
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('access denied');
    expect(existsSync(credentialsPath(configDir))).toBe(false);
  });
});
