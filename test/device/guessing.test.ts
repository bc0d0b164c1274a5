import { describe, expect, it } from 'vitest';
import { describeDeviceCode } from '../../src/core/device/approve.js';
import {
  NEAR_MISS_LOCK_AFTER,
  WRONG_CODES_PER_ADDRESS,
  WRONG_CODES_PER_USER,
} from '../../src/core/device/guess-guard.js';
import type { DeviceAuthorization } from '../../src/core/device/start.js';
import { USER_CODE_ALPHABET } from '../../src/core/device/user-code.js';
import { useTestServer } from '../support/http.js';
import { buildUser, newClientAddress, postJson, readResponse, testClock, type TestUser } from '../support/identity.js';

const clock = testClock();
// Trusting X-Forwarded-For lets one test speak from several client addresses.
const { t, server } = await useTestServer({ server: { app: { trustProxy: true } }, clock });

async function start(): Promise<DeviceAuthorization> {
  return (await (
    await postJson(server, '/auth/device/start', { client_name: 'guess-test' })
  ).json()) as DeviceAuthorization;
}

function approveAs(user: TestUser, userCode: string, address: string): Promise<Response> {
  return postJson(
    server,
    '/auth/device/approve',
    { userCode },
    {
      bearer: user.session,
      headers: { 'x-organization-id': user.workspaceId, 'x-forwarded-for': address },
    },
  );
}

/** The code with every character moved `by` places along the alphabet: far from the real one. */
function farFrom(userCode: string, by: number): string {
  const chars = userCode.slice('DECK-'.length).replace('-', '');
  return [...chars].map((c) => USER_CODE_ALPHABET[(USER_CODE_ALPHABET.indexOf(c) + by) % 20]).join('');
}

/** The code with `positions` characters changed: a near miss. */
function nearTo(userCode: string, positions: number[]): string {
  const chars = [...userCode.slice('DECK-'.length).replace('-', '')];
  for (const i of positions) chars[i] = USER_CODE_ALPHABET[(USER_CODE_ALPHABET.indexOf(chars[i]!) + 1) % 20]!;
  return chars.join('');
}

describe('guessing user codes', () => {
  it(`throttles a user after ${WRONG_CODES_PER_USER} wrong codes; the owner still approves the real one`, async () => {
    const started = await start();
    const attacker = await buildUser(t.deps);
    const owner = await buildUser(t.deps);
    const attackerAddress = newClientAddress();
    for (let i = 1; i <= WRONG_CODES_PER_USER; i++) {
      const { status, body } = await readResponse(
        await approveAs(attacker, farFrom(started.user_code, i), attackerAddress),
      );
      expect(status).toBe(404);
      expect(body).toMatchObject({ code: 'not_found' });
    }
    const throttled = await approveAs(attacker, farFrom(started.user_code, 11), attackerAddress);
    expect(throttled.status).toBe(429);
    expect(await throttled.json()).toMatchObject({ code: 'rate_limited' });
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Throttled means throttled: even the right code is refused, so it cannot serve as an oracle.
    expect((await approveAs(attacker, started.user_code, newClientAddress())).status).toBe(429);

    const approved = await readResponse(await approveAs(owner, started.user_code, newClientAddress()));
    expect(approved).toEqual({ status: 200, body: { status: 'approved', organizationId: owner.workspaceId } });
    const polled = await readResponse(
      await postJson(server, '/auth/device/token', { device_code: started.device_code }),
    );
    expect(polled.status).toBe(200);
  });

  it(`throttles an address after ${WRONG_CODES_PER_ADDRESS} wrong codes from any users; others are unaffected`, async () => {
    const started = await start();
    const owner = await buildUser(t.deps);
    const shared = newClientAddress();
    const attackers = await Promise.all([1, 2, 3, 4].map(() => buildUser(t.deps)));
    let sent = 0;
    for (const attacker of attackers.slice(0, 3)) {
      for (let i = 1; i <= WRONG_CODES_PER_ADDRESS / 3; i++) {
        expect((await approveAs(attacker, farFrom(started.user_code, (sent++ % 19) + 1), shared)).status).toBe(404);
      }
    }
    const fresh = attackers[3]!;
    const refused = await approveAs(fresh, farFrom(started.user_code, 1), shared);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // The same fresh user from another address is fine, and so is the owner.
    expect((await approveAs(fresh, farFrom(started.user_code, 2), newClientAddress())).status).toBe(404);
    expect((await approveAs(owner, started.user_code, newClientAddress())).status).toBe(200);
  });

  it('lets the window pass: a throttled user may try again in the next window', async () => {
    // A code lives exactly as long as a guessing window (15 minutes): started in a window's first second, it
    // would expire just as that window ends. Start mid-window, so the retry lands while the code lives.
    const windowMs = 15 * 60_000;
    clock.advance((windowMs * 1.5 - (clock.now().getTime() % windowMs)) % windowMs);
    const started = await start();
    const user = await buildUser(t.deps);
    const address = newClientAddress();
    for (let i = 1; i <= WRONG_CODES_PER_USER; i++) await approveAs(user, farFrom(started.user_code, i), address);
    const throttled = await approveAs(user, started.user_code, address);
    expect(throttled.status).toBe(429);
    clock.advance(Number(throttled.headers.get('retry-after')) * 1000);
    expect((await approveAs(user, started.user_code, address)).status).toBe(200);
  });

  it(`locks a code after ${NEAR_MISS_LOCK_AFTER} wrong tries near it, from anyone`, async () => {
    const started = await start();
    const owner = await buildUser(t.deps);
    const nearMisses = [[0], [7], [3, 4], [1, 6], [2]];
    for (const positions of nearMisses) {
      const guesser = await buildUser(t.deps);
      expect((await approveAs(guesser, nearTo(started.user_code, positions), newClientAddress())).status).toBe(404);
    }
    // Locked: the real code no longer approves, and the device is told to start over.
    expect((await approveAs(owner, started.user_code, newClientAddress())).status).toBe(404);
    const polled = await readResponse(
      await postJson(server, '/auth/device/token', { device_code: started.device_code }),
    );
    expect(polled).toEqual({
      status: 400,
      body: { error: 'expired_token', error_description: expect.stringMatching(/^Too many wrong user codes/) },
    });
  });

  it(`does not lock a code after ${NEAR_MISS_LOCK_AFTER - 1} near misses, nor count far-off guesses`, async () => {
    const started = await start();
    const owner = await buildUser(t.deps);
    const guesser = await buildUser(t.deps);
    const address = newClientAddress();
    for (const positions of [[0], [1], [2, 3], [4, 5]]) {
      expect((await approveAs(guesser, nearTo(started.user_code, positions), address)).status).toBe(404);
    }
    for (let i = 1; i <= 5; i++) {
      expect((await approveAs(guesser, farFrom(started.user_code, i), address)).status).toBe(404);
    }
    expect((await approveAs(owner, started.user_code, newClientAddress())).status).toBe(200);
  });

  it('guards the description lookup the same way', async () => {
    const started = await start();
    const user = await buildUser(t.deps);
    const submitter = { userId: user.user.id, address: newClientAddress() };
    await expect(describeDeviceCode(t.deps, submitter, started.user_code.toLowerCase())).resolves.toMatchObject({
      userCode: started.user_code,
      clientName: 'guess-test',
      status: 'pending',
    });
    for (let i = 1; i <= WRONG_CODES_PER_USER; i++) {
      await expect(describeDeviceCode(t.deps, submitter, farFrom(started.user_code, i))).rejects.toMatchObject({
        code: 'not_found',
      });
    }
    await expect(describeDeviceCode(t.deps, submitter, started.user_code)).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: expect.any(Number),
    });
  });
});
