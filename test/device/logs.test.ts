import { describe, expect, it } from 'vitest';
import type { DeviceAuthorization } from '../../src/core/device/start.js';
import { createLogger } from '../../src/logger.js';
import { useTestServer } from '../support/http.js';
import { postJson, readResponse, testClock } from '../support/identity.js';

const lines: string[] = [];
const clock = testClock();
// Everything at the most verbose level, captured in memory.
const logger = createLogger({ level: 'trace', destination: { write: (line: string) => void lines.push(line) } });
const { server } = await useTestServer({ database: { logger }, server: { app: { openSignup: true } }, clock });

describe('logs during sign-up, sign-in and the device flow', () => {
  it('never contain a password, session token, device code, user code or API key', async () => {
    const password = 'a very secret password';
    const secrets: string[] = [password];
    const signedUp = await readResponse(
      await postJson(server, '/auth/signup', { email: 'log@example.test', password, name: 'L' }),
    );
    const signedIn = await readResponse(
      await postJson(server, '/auth/signin', { email: 'log@example.test', password }),
    );
    await postJson(server, '/auth/signin', { email: 'log@example.test', password: `${password}!` });
    const session = String(signedIn.body?.token);
    secrets.push(String(signedUp.body?.token), session);

    const started = (await (
      await postJson(server, '/auth/device/start', { client_name: 'cli' })
    ).json()) as DeviceAuthorization;
    secrets.push(started.device_code, started.user_code, started.user_code.slice(5).replace('-', ''));
    await postJson(server, '/auth/device/token', { device_code: started.device_code });
    await postJson(
      server,
      '/auth/device/approve',
      { userCode: 'DECK-BBBB-BBBB' },
      {
        bearer: session,
        headers: { 'x-organization-id': String(signedUp.body?.workspaceId) },
      },
    );
    const approved = await postJson(
      server,
      '/auth/device/approve',
      { userCode: started.user_code },
      {
        bearer: session,
        headers: { 'x-organization-id': String(signedUp.body?.workspaceId) },
      },
    );
    expect(approved.status).toBe(200);
    clock.advance(5_000);
    const polled = await readResponse(
      await postJson(server, '/auth/device/token', { device_code: started.device_code }),
    );
    expect(polled.status).toBe(200);
    const apiKey = String(polled.body?.api_key);
    secrets.push(apiKey);
    await server.request('/public/v1/platforms', { apiKey });
    await postJson(server, '/auth/signout', undefined, { bearer: session });

    expect(lines.length).toBeGreaterThan(10);
    expect(lines.join('\n')).toContain('device code redeemed');
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(7);
      for (const line of lines) expect(line).not.toContain(secret);
    }
  });
});
