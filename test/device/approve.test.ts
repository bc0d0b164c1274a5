import { describe, expect, it } from 'vitest';
import { authenticateApiKey, revokeApiKey } from '../../src/core/auth/api-keys.js';
import { acceptInvitation, createInvitation } from '../../src/core/identity/invitations.js';
import type { DeviceAuthorization } from '../../src/core/device/start.js';
import { buildPlatform } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { buildUser, postJson, readResponse, testClock, type TestUser } from '../support/identity.js';

const clock = testClock();
const { t, server } = await useTestServer({ clock });

async function start(clientName?: string): Promise<DeviceAuthorization> {
  const body = clientName === undefined ? {} : { client_name: clientName };
  return (await (await postJson(server, '/auth/device/start', body)).json()) as DeviceAuthorization;
}

function approve(userCode: unknown, options: { session?: string; workspaceId?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.workspaceId !== undefined) headers['x-organization-id'] = options.workspaceId;
  return postJson(server, '/auth/device/approve', { userCode }, { bearer: options.session, headers });
}

/** Runs the whole flow for `user` in `workspaceId` and returns the key the device receives. */
async function keyFor(user: TestUser, workspaceId: string): Promise<string> {
  const started = await start('isolation');
  expect((await approve(started.user_code, { session: user.session, workspaceId })).status).toBe(200);
  const polled = await readResponse(await postJson(server, '/auth/device/token', { device_code: started.device_code }));
  expect(polled.status).toBe(200);
  return polled.body?.api_key as string;
}

describe('POST /auth/device/approve: authentication and validation', () => {
  it('answers 401 invalid_session without a session, with a wrong one, and with an API key', async () => {
    const user = await buildUser(t.deps);
    const started = await start();
    const apiKey = await keyFor(user, user.workspaceId);
    for (const session of [undefined, 'pds_nope', `pds_${'A'.repeat(43)}`, apiKey]) {
      const { status, body } = await readResponse(
        await approve(started.user_code, { session, workspaceId: user.workspaceId }),
      );
      expect(status).toBe(401);
      expect(body).toMatchObject({ code: 'invalid_session', message: expect.any(String) });
    }
  });

  it('answers 401 invalid_session for an expired session', async () => {
    const user = await buildUser(t.deps);
    const started = await start();
    clock.advance(15 * 86_400_000);
    const { status, body } = await readResponse(
      await approve(started.user_code, { session: user.session, workspaceId: user.workspaceId }),
    );
    expect(status).toBe(401);
    expect(body).toMatchObject({ code: 'invalid_session' });
  });

  it('answers 400 invalid_request with every issue and its path', async () => {
    const user = await buildUser(t.deps);
    const missingHeader = await readResponse(await approve('DECK-BCDF-GHJK', { session: user.session }));
    expect(missingHeader).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', details: [{ path: ['headers', 'x-organization-id'] }] },
    });
    const badBody = await readResponse(await approve(42, { session: user.session, workspaceId: user.workspaceId }));
    expect(badBody).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', details: [{ path: ['body', 'userCode'] }] },
    });
    const notUuid = await readResponse(await approve('x', { session: user.session, workspaceId: 'ws-1' }));
    expect(notUuid.body).toMatchObject({ code: 'invalid_request' });
  });

  it('validates deny the same way', async () => {
    const user = await buildUser(t.deps);
    expect((await postJson(server, '/auth/device/deny', { userCode: 'x' })).status).toBe(401);
    const { status, body } = await readResponse(
      await postJson(server, '/auth/device/deny', {}, { bearer: user.session }),
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'invalid_request', details: [{ path: ['body', 'userCode'] }] });
  });
});

describe('POST /auth/device/approve: workspaces', () => {
  it("answers 404 not_found for a workspace the user doesn't belong to, like one that doesn't exist", async () => {
    const user = await buildUser(t.deps);
    const stranger = await buildUser(t.deps);
    const started = await start();
    const foreign = await readResponse(
      await approve(started.user_code, { session: user.session, workspaceId: stranger.workspaceId }),
    );
    const missing = await readResponse(
      await approve(started.user_code, { session: user.session, workspaceId: '6f1c1f0e-8a6b-4c57-9d5e-2f0a3b1c4d5e' }),
    );
    expect(foreign).toEqual({ status: 404, body: { code: 'not_found', message: 'Workspace not found' } });
    expect(missing).toEqual(foreign);
    // The code is still pending: a failed approval decides nothing.
    expect((await approve(started.user_code, { session: user.session, workspaceId: user.workspaceId })).status).toBe(
      200,
    );
  });

  it('scopes the key to the workspace in x-organization-id, for a member of several', async () => {
    const owner = await buildUser(t.deps);
    const member = await buildUser(t.deps);
    const { token } = await createInvitation(t.deps, owner.scope, { role: 'member' });
    await acceptInvitation(t.deps, { token, userId: member.user.id });
    const ownersPlatform = await buildPlatform(t.deps, owner.workspaceId);
    await buildPlatform(t.deps, member.workspaceId);

    const apiKey = await keyFor(member, owner.workspaceId);
    const listed = (await (await server.request('/public/v1/platforms', { apiKey })).json()) as {
      platforms: { id: string }[];
    };
    expect(listed.platforms.map((p) => p.id)).toEqual([ownersPlatform._id]);
  });

  it("gives a key minted for workspace A not_found for workspace B's resources", async () => {
    const a = await buildUser(t.deps);
    const b = await buildUser(t.deps);
    const aKey = await keyFor(a, a.workspaceId);
    const bKey = await keyFor(b, b.workspaceId);
    const bPlatform = await buildPlatform(t.deps, b.workspaceId);

    const aScope = await authenticateApiKey(t.deps, aKey);
    expect(aScope.workspaceId).toBe(a.workspaceId);
    const aList = (await (await server.request('/public/v1/platforms', { apiKey: aKey })).json()) as {
      platforms: { id: string }[];
    };
    expect(aList.platforms.map((p) => p.id)).not.toContain(bPlatform._id);
    const bActor = (await authenticateApiKey(t.deps, bKey)).actor;
    const bKeyId = bActor.type === 'api_key' ? bActor.keyId : 'not an api key';
    await expect(revokeApiKey(t.deps, aScope, bKeyId)).rejects.toMatchObject({ code: 'not_found' });
    expect((await server.request('/public/v1/platforms', { apiKey: bKey })).status).toBe(200);
  });
});

describe('POST /auth/device/approve and /deny: the code', () => {
  it.each([
    ['lower case', (code: string) => code.toLowerCase()],
    ['no dashes', (code: string) => code.replaceAll('-', '')],
    ['no prefix', (code: string) => code.slice('DECK-'.length)],
    ['spaces', (code: string) => ` ${code.replaceAll('-', ' ')} `],
  ])('accepts the code with %s', async (_label, transform) => {
    const user = await buildUser(t.deps);
    const started = await start();
    const { status, body } = await readResponse(
      await approve(transform(started.user_code), { session: user.session, workspaceId: user.workspaceId }),
    );
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'approved', organizationId: user.workspaceId });
  });

  it('takes a repeated approval by the same person in stride, but lets no one else at a decided code', async () => {
    const user = await buildUser(t.deps);
    const other = await buildUser(t.deps);
    const started = await start();
    expect((await approve(started.user_code, { session: user.session, workspaceId: user.workspaceId })).status).toBe(
      200,
    );
    expect((await approve(started.user_code, { session: user.session, workspaceId: user.workspaceId })).status).toBe(
      200,
    );
    expect((await approve(started.user_code, { session: user.session, workspaceId: other.workspaceId })).status).toBe(
      404,
    );
    expect((await approve(started.user_code, { session: other.session, workspaceId: other.workspaceId })).status).toBe(
      404,
    );
    const deny = await postJson(server, '/auth/device/deny', { userCode: started.user_code }, { bearer: user.session });
    expect(await readResponse(deny)).toMatchObject({ status: 409, body: { code: 'conflict' } });
  });

  it('cannot approve a denied code', async () => {
    const user = await buildUser(t.deps);
    const started = await start();
    await postJson(server, '/auth/device/deny', { userCode: started.user_code }, { bearer: user.session });
    const { status } = await readResponse(
      await approve(started.user_code, { session: user.session, workspaceId: user.workspaceId }),
    );
    expect(status).toBe(409);
    const polled = await readResponse(
      await postJson(server, '/auth/device/token', { device_code: started.device_code }),
    );
    expect(polled).toEqual({
      status: 400,
      body: { error: 'access_denied', error_description: expect.stringMatching(/denied/) },
    });
  });
});
