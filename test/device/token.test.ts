import { beforeAll, describe, expect, it } from 'vitest';
import { WRONG_CODES_PER_ADDRESS_PER_WINDOW } from '../../src/core/device/poll.js';
import { startDeviceAuthorization, type DeviceAuthorization } from '../../src/core/device/start.js';
import { useTestServer } from '../support/http.js';
import { buildUser, postJson, readResponse, testClock, type TestUser } from '../support/identity.js';

const clock = testClock();
const { t, server } = await useTestServer({ clock });
let owner: TestUser;

beforeAll(async () => {
  owner = await buildUser(t.deps);
});

async function start(body: unknown = {}): Promise<DeviceAuthorization> {
  const response = await postJson(server, '/auth/device/start', body);
  expect(response.status).toBe(200);
  return (await response.json()) as DeviceAuthorization;
}

async function poll(deviceCode: string): Promise<{ status: number; body: Record<string, unknown> | null }> {
  return readResponse(await postJson(server, '/auth/device/token', { device_code: deviceCode }));
}

async function approve(userCode: string, user: TestUser = owner): Promise<Response> {
  return postJson(
    server,
    '/auth/device/approve',
    { userCode },
    {
      bearer: user.session,
      headers: { 'x-organization-id': user.workspaceId },
    },
  );
}

/** An RFC 8628 3.5 refusal: the error code and a description for a person. */
const refusal = (error: string) => ({ status: 400, body: { error, error_description: expect.stringMatching(/\w/) } });
const pending = refusal('authorization_pending');
const slowDown = refusal('slow_down');
const expired = refusal('expired_token');

describe('POST /auth/device/start', () => {
  it('issues the codes of spec 4, storing the device code only as a hash', async () => {
    const response = await postJson(server, '/auth/device/start', {});
    const body = (await response.json()) as DeviceAuthorization;
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(body).sort()).toEqual(
      ['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete'].sort(),
    );
    expect(body.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
    expect(body.user_code).toMatch(/^DECK-[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(body.verification_uri).toBe('http://localhost/device');
    expect(body.verification_uri_complete).toBe(`http://localhost/device?code=${body.user_code}`);
    expect(body).toMatchObject({ interval: 5, expires_in: 900 });
    const stored = await t.db.collection('device_codes').find().toArray();
    expect(JSON.stringify(stored)).not.toContain(body.device_code);
  });

  it('takes the RFC 8628 form too, and refuses in the API shape and RFC 6749 shape at once', async () => {
    const response = await server.request('/auth/device/start', {
      method: 'POST',
      body: new URLSearchParams({ client_id: 'stock-cli', scope: 'anything', client_name: 'Form client' }),
    });
    expect(response.status).toBe(200);
    const started = (await response.json()) as DeviceAuthorization;
    expect(
      (await t.deps.db.deviceCodes.findOne({ userCode: started.user_code.replace(/^DECK-|-/g, '') }))?.clientName,
    ).toBe('Form client');
    const refused = await server.request('/auth/device/start', {
      method: 'POST',
      body: new URLSearchParams({ client_name: 'x'.repeat(101) }),
    });
    expect(await readResponse(refused)).toEqual({
      status: 400,
      body: {
        code: 'invalid_request',
        message: expect.stringMatching(/^The request is not valid \(body\.client_name: /),
        details: [{ path: ['body', 'client_name'], message: expect.any(String) }],
        error: 'invalid_request',
        error_description: expect.stringMatching(/^The request is not valid \(body\.client_name: /),
      },
    });
    const wrongType = await server.request('/auth/device/start', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(await readResponse(wrongType)).toMatchObject({
      status: 415,
      body: {
        code: 'unsupported_media_type',
        error: 'invalid_request',
        error_description: expect.stringMatching(/form/),
      },
    });
  });

  it('accepts an empty body and a client name; rejects a bad one with details', async () => {
    expect((await postJson(server, '/auth/device/start', undefined)).status).toBe(200);
    await start({ client_name: 'My laptop' });
    const { status, body } = await readResponse(
      await postJson(server, '/auth/device/start', { client_name: 'x'.repeat(101) }),
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'invalid_request', details: [{ path: ['body', 'client_name'] }] });
  });

  it('refuses a JSON null body on start as invalid_request, while no body at all is an empty request', async () => {
    const refused = await server.request('/auth/device/start', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'null',
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'invalid_request' });
    expect((await server.request('/auth/device/start', { method: 'POST' })).status).toBe(200);
  });

  it('uses the configured prefix', async () => {
    const started = await startDeviceAuthorization(t.deps, { publicUrl: 'https://deck.example/', prefix: 'ACME' });
    expect(started.user_code).toMatch(/^ACME-[A-Z]{4}-[A-Z]{4}$/);
    expect(started.verification_uri).toBe('https://deck.example/device');
  });
});

describe('POST /auth/device/token', () => {
  it('answers authorization_pending while the person has not decided', async () => {
    const started = await start();
    const response = await postJson(server, '/auth/device/token', { device_code: started.device_code });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await readResponse(response)).toEqual(pending);
  });

  it('answers slow_down to a poll sooner than the interval, and the interval grows by 5 s for good', async () => {
    const started = await start();
    expect(await poll(started.device_code)).toEqual(pending);
    clock.advance(2_000);
    expect(await poll(started.device_code)).toEqual(slowDown);
    expect(
      (await t.deps.db.deviceCodes.findOne({ userCode: started.user_code.replace(/^DECK-|-/g, '') }))?.interval,
    ).toBe(10);
    clock.advance(10_000); // the new interval
    expect(await poll(started.device_code)).toEqual(pending);
    clock.advance(5_000); // the old interval is no longer enough
    expect(await poll(started.device_code)).toEqual(slowDown);
    clock.advance(15_000); // it grew again, to 15 s
    expect(await poll(started.device_code)).toEqual(pending);
  });

  it('tolerates about a second of clock jitter, not more', async () => {
    const started = await start();
    expect(await poll(started.device_code)).toEqual(pending);
    clock.advance(4_100);
    expect(await poll(started.device_code)).toEqual(pending);
    clock.advance(3_900);
    expect(await poll(started.device_code)).toEqual(slowDown);
  });

  it('answers expired_token once expires_in has passed', async () => {
    const started = await start();
    clock.advance(899_000);
    expect(await poll(started.device_code)).toEqual(pending);
    clock.advance(1_000);
    expect(await poll(started.device_code)).toEqual(expired);
    // An expired code cannot be approved any more either.
    expect((await approve(started.user_code)).status).toBe(404);
  });

  it('answers access_denied after the person denied', async () => {
    const started = await start();
    const denied = await postJson(
      server,
      '/auth/device/deny',
      { userCode: started.user_code },
      { bearer: owner.session },
    );
    expect(await readResponse(denied)).toEqual({ status: 200, body: { status: 'denied' } });
    expect(await poll(started.device_code)).toEqual(refusal('access_denied'));
    clock.advance(5_000);
    expect(await poll(started.device_code)).toEqual(refusal('access_denied'));
  });

  it('returns the key exactly once after approval, minted then and stored only hashed', async () => {
    const started = await start({ client_name: 'Test CLI' });
    expect(await readResponse(await approve(started.user_code))).toEqual({
      status: 200,
      body: { status: 'approved', organizationId: owner.workspaceId },
    });
    const first = await poll(started.device_code);
    expect(first).toEqual({
      status: 200,
      body: {
        status: 'approved',
        api_key: expect.stringMatching(/^service_sk_/),
        access_token: first.body?.api_key,
        token_type: 'Bearer',
      },
    });
    const apiKey = first.body?.api_key as string;
    expect((await server.request('/public/v1/platforms', { apiKey })).status).toBe(200);

    clock.advance(5_000);
    expect(await poll(started.device_code)).toEqual(expired);
    const keys = await t.deps.db.apiKeys.find({ workspaceId: owner.workspaceId, name: 'Test CLI' }).toArray();
    expect(keys).toHaveLength(1);
    expect(keys[0]?.userId).toBe(owner.user.id);
    const everything = JSON.stringify([keys, await t.db.collection('device_codes').find().toArray()]);
    expect(everything).not.toContain(apiKey.slice('service_sk_'.length));
    expect(everything).not.toContain(started.device_code);
  });

  it('mints one key when 50 polls arrive at once after approval', async () => {
    const started = await start({ client_name: 'burst-after' });
    expect((await approve(started.user_code)).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 50 }, () => poll(started.device_code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(49);
    expect(await t.deps.db.apiKeys.countDocuments({ name: 'burst-after' })).toBe(1);
    // One audit entry: created by the person who approved it with their session, not by the polls.
    const key = await t.deps.db.apiKeys.findOne({ name: 'burst-after' });
    const entries = await t.deps.db.audit.find({ 'subject.id': key!._id }).toArray();
    expect(entries).toMatchObject([
      { action: 'api_key.created', actor: { type: 'user', userId: owner.user.id }, surface: 'web' },
    ]);
  });

  it('mints one key when 50 polls race the approval itself', async () => {
    const started = await start({ client_name: 'burst-during' });
    const [approval, ...polls] = await Promise.all([
      approve(started.user_code).then(readResponse),
      ...Array.from({ length: 50 }, () => poll(started.device_code)),
    ]);
    expect(approval?.status).toBe(200);
    clock.advance(60_000);
    const late = await poll(started.device_code);
    const successes = [...polls, late].filter((r) => r.status === 200);
    expect(successes).toHaveLength(1);
    for (const r of [...polls, late].filter((r) => r.status !== 200)) {
      expect(['authorization_pending', 'slow_down', 'expired_token']).toContain(r.body?.error);
    }
    expect(await t.deps.db.apiKeys.countDocuments({ name: 'burst-during' })).toBe(1);
  });

  it('answers expired_token for an unknown code', async () => {
    expect(await poll('A'.repeat(43))).toEqual(expired);
    expect(await poll('short')).toEqual(expired);
  });

  it.each([
    ['an empty object', '{}', 'application/json', /^The request is not valid \(body\.device_code: /],
    [
      'a wrongly typed code',
      '{"device_code":5}',
      'application/json',
      /^The request is not valid \(body\.device_code: /,
    ],
    ['malformed JSON', '{"device_code":', 'application/json', /^The request body is not valid JSON$/],
    ['an empty form', 'client_id=cli', 'application/x-www-form-urlencoded', /device_code: /],
    ['plain text', 'device_code=x', 'text/plain', /^Send the request body as application\/x-www-form-urlencoded or/],
  ])('answers %s with 400 invalid_request and a description', async (_label, body, contentType, description) => {
    const response = await server.request('/auth/device/token', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    expect(await readResponse(response)).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringMatching(description) },
    });
  });

  it('takes the RFC 8628 form a stock client sends, and says what each answer means', async () => {
    const started = await start();
    const form = (fields: Record<string, string>) =>
      server.request('/auth/device/token', { method: 'POST', body: new URLSearchParams(fields) });
    const polled = await form({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: started.device_code,
      client_id: 'stock-cli',
    });
    expect(polled.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await readResponse(polled)).toEqual({
      status: 400,
      body: {
        error: 'authorization_pending',
        error_description: 'The person has not approved this login yet. Poll again in 5 seconds.',
      },
    });
    expect(await readResponse(await form({ grant_type: 'authorization_code', device_code: 'x' }))).toEqual({
      status: 400,
      body: {
        error: 'unsupported_grant_type',
        error_description: 'This endpoint takes only grant_type=urn:ietf:params:oauth:grant-type:device_code',
      },
    });
    expect(await readResponse(await form({ device_code: 'A'.repeat(43) }))).toEqual({
      status: 400,
      body: { error: 'expired_token', error_description: expect.stringMatching(/unknown or has expired/) },
    });
  });
});

describe('polls that try to get around the limits', () => {
  it('lets one of 20 concurrent first polls through the interval and slows the rest down', async () => {
    const started = await start({ client_name: 'burst-pending' });
    const results = await Promise.all(Array.from({ length: 20 }, () => poll(started.device_code)));
    const errors = results.map((r) => r.body?.error);
    expect(errors.filter((e) => e === 'authorization_pending')).toHaveLength(1);
    expect(errors.filter((e) => e === 'slow_down')).toHaveLength(19);
  });

  it('slows down an address that keeps sending wrong codes, with 429 and Retry-After, before looking them up', async () => {
    // A window of its own (earlier tests sent wrong codes too), entered halfway so the code outlives it.
    const window = 15 * 60_000;
    clock.advance(window - (t.deps.now().getTime() % window) + window / 2);
    const started = await start({ client_name: 'next-to-a-guesser' });
    const guesses = [];
    for (let i = 0; i < WRONG_CODES_PER_ADDRESS_PER_WINDOW; i++) {
      guesses.push(await poll(`${String(i).padStart(2, '0')}${'B'.repeat(41)}`));
    }
    expect(guesses.every((g) => g.status === 400 && g.body?.error === 'expired_token')).toBe(true);
    const throttled = await postJson(server, '/auth/device/token', { device_code: 'C'.repeat(43) });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await throttled.json()).toEqual({
      error: 'slow_down',
      error_description: expect.stringMatching(/^Too many unknown device codes from this address\. Wait \d+ seconds/),
    });
    // The whole address waits, real codes included; the next window lets it poll again.
    expect((await poll(started.device_code)).status).toBe(429);
    clock.advance(window - (t.deps.now().getTime() % window) + 1_000); // the next window, the code still live
    expect(await poll(started.device_code)).toEqual(pending);
  });
});
