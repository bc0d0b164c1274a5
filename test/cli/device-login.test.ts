import { describe, expect, it } from 'vitest';
import { pollDeviceLogin, startDeviceLogin } from '../../src/cli/device-login.js';
import { useTestServer } from '../support/http.js';

const { t, server } = await useTestServer();

describe("the CLI's polling loop against the real token endpoint", { timeout: 60_000 }, () => {
  it('adds 5 s to its interval after each slow_down', async () => {
    const start = await startDeviceLogin(server.url, 'test client');
    // Pretend the server asked for no wait: the second poll comes too soon and is told slow_down.
    const polls: number[] = [];
    const started = Date.now();
    const polling = pollDeviceLogin(server.url, { ...start, interval: 0, expires_in: 8 }, (left) => polls.push(left));
    expect(await polling).toEqual({ status: 'expired' });
    const doc = await t.deps.db.deviceCodes.findOne({});
    // Polls at 0 s, 0 s (slow_down: wait 5 s), 5 s (slow_down again: the server, 5 s ahead from
    // the start, now wants 15; wait 10 s) and then the 8 s expiry: exactly two slow_downs.
    // A client that ignored slow_down would poll in a tight loop and push the interval far higher.
    expect(doc?.interval).toBe(start.interval + 10);
    expect(polls).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
  });

  it('stops at expires_in', async () => {
    const start = await startDeviceLogin(server.url, 'test client');
    const polls: number[] = [];
    const started = Date.now();
    const outcome = await pollDeviceLogin(server.url, { ...start, interval: 1, expires_in: 2 }, (left) =>
      polls.push(left),
    );
    expect(outcome).toEqual({ status: 'expired' });
    // One poll at 1 s; the next would come at the expiry, so the client stops there instead.
    expect(polls).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
  });
});
