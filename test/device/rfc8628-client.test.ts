import * as client from 'openid-client';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../support/http.js';
import { buildUser, postJson, type TestUser } from '../support/identity.js';

// A device-flow client written for RFC 8628 by others (openid-client), against the real server on
// the real clock: it sends forms, waits the interval, and reads RFC 6749's names.
const { t, server } = await useTestServer();
let owner: TestUser;

beforeAll(async () => {
  owner = await buildUser(t.deps);
});

/** The library configured with Postdeck's device endpoints as server metadata, no discovery. */
function stockClient(): client.Configuration {
  const config = new client.Configuration(
    {
      issuer: server.url,
      device_authorization_endpoint: `${server.url}/auth/device/start`,
      token_endpoint: `${server.url}/auth/device/token`,
    },
    'stock-device-client',
  );
  client.allowInsecureRequests(config); // loopback HTTP in the test
  return config;
}

/** Waits until the server has answered the device's first poll (so the grant sees authorization_pending). */
async function firstPollSeen(userCode: string): Promise<void> {
  const stored = userCode.replace(/^DECK-|-/g, '');
  await vi.waitFor(
    async () => {
      const doc = await t.deps.db.deviceCodes.findOne({ userCode: stored });
      expect(doc?.lastPolledAt).toBeInstanceOf(Date);
    },
    { timeout: 60_000, interval: 200 },
  );
}

function decide(action: 'approve' | 'deny', userCode: string): Promise<Response> {
  return postJson(
    server,
    `/auth/device/${action}`,
    { userCode },
    { bearer: owner.session, headers: { 'x-organization-id': owner.workspaceId } },
  );
}

describe('an RFC 8628 client library (openid-client)', () => {
  it('starts the flow, polls while the person decides, and gets the key as its access token', async () => {
    const config = stockClient();
    const started = await client.initiateDeviceAuthorization(config, { client_name: 'Stock client', scope: 'posts' });
    expect(started.user_code).toMatch(/^DECK-/);
    expect(started.interval).toBe(5);

    const polling = client.pollDeviceAuthorizationGrant(config, started);
    await firstPollSeen(started.user_code);
    expect((await decide('approve', started.user_code)).status).toBe(200);
    const tokens = await polling;

    expect(tokens.token_type).toBe('bearer');
    expect(tokens.access_token).toMatch(/^service_sk_/);
    expect((await server.request('/public/v1/platforms', { apiKey: tokens.access_token })).status).toBe(200);
    const key = await t.deps.db.apiKeys.findOne({ workspaceId: owner.workspaceId, name: 'Stock client' });
    expect(key?.userId).toBe(owner.user.id);
  }, 120_000);

  it('stops on a denial with the RFC error and a description it can show', async () => {
    const config = stockClient();
    const started = await client.initiateDeviceAuthorization(config, {});
    const polling = client.pollDeviceAuthorizationGrant(config, started);
    const outcome = polling.catch((error: unknown) => error);
    await firstPollSeen(started.user_code);
    expect((await decide('deny', started.user_code)).status).toBe(200);

    const error = await outcome;
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect(error).toMatchObject({
      error: 'access_denied',
      error_description: 'The person denied this login. Start a new one to try again.',
    });
  }, 120_000);

  it('hears why a start is refused', async () => {
    const error = await client
      .initiateDeviceAuthorization(stockClient(), { client_name: 'x'.repeat(101) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect(error).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/^The request is not valid \(body\.client_name: /),
    });
  });
});
