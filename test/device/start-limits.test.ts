import { describe, expect, it } from 'vitest';
import { STARTS_PER_ADDRESS_PER_WINDOW } from '../../src/core/device/start.js';
import { SIGNUPS_PER_ADDRESS_PER_HOUR } from '../../src/core/identity/sign-up.js';
import { useTestServer } from '../support/http.js';

const { server } = await useTestServer({ server: { app: { openSignup: true } } });

const post = (path: string, body: unknown) =>
  server.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('limits on unauthenticated starts', () => {
  it('throttles device-flow starts per address, with Retry-After', async () => {
    const statuses = [];
    for (let i = 0; i < STARTS_PER_ADDRESS_PER_WINDOW; i++)
      statuses.push((await post('/auth/device/start', {})).status);
    expect(new Set(statuses)).toEqual(new Set([200]));
    const limited = await post('/auth/device/start', {});
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('throttles sign-ups per address', async () => {
    for (let i = 0; i < SIGNUPS_PER_ADDRESS_PER_HOUR; i++) {
      const response = await post('/auth/signup', {
        email: `u${i}@example.com`,
        password: 'long enough password',
        name: 'U',
      });
      expect(response.status).toBe(201);
    }
    const limited = await post('/auth/signup', {
      email: 'late@example.com',
      password: 'long enough password',
      name: 'L',
    });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ code: 'rate_limited' });
  });
});
