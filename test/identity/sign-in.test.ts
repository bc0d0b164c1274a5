import { describe, expect, it } from 'vitest';
import { LOGIN_FAILURES_PER_ACCOUNT, LOGIN_FAILURES_PER_ADDRESS, signIn } from '../../src/core/identity/sign-in.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { buildUser, newClientAddress, postJson, readResponse, testClock } from '../support/identity.js';

const clock = testClock();
const { t, server } = await useTestServer({ server: { app: { trustProxy: true } }, clock });

function signInAs(email: string, password: string, address = newClientAddress()): Promise<Response> {
  return postJson(server, '/auth/signin', { email, password }, { headers: { 'x-forwarded-for': address } });
}

function whoami(token: string): Promise<Response> {
  return server.request('/auth/session', { headers: { authorization: `Bearer ${token}` } });
}

describe('POST /auth/signin', () => {
  it('starts a session for the right password; the email is case-insensitive', async () => {
    const user = await buildUser(t.deps);
    const response = await signInAs(` ${user.email.toUpperCase()} `, user.password);
    const { status, body } = await readResponse(response);
    expect(status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({
      token: expect.stringMatching(/^pds_/),
      expiresAt: new Date(clock.now().getTime() + 14 * 86_400_000).toISOString(),
      user: { id: user.user.id, email: user.email, name: 'Test User', createdAt: expect.any(String) },
    });
    const session = await readResponse(await whoami(String(body?.token)));
    expect(session).toMatchObject({
      status: 200,
      body: { user: { id: user.user.id }, workspaces: [{ workspaceId: user.workspaceId }] },
    });
    const stored = await t.deps.db.sessions.find({ userId: user.user.id }).toArray();
    expect(JSON.stringify(stored)).not.toContain(String(body?.token).slice(4));
  });

  it('answers a wrong password and an unknown email alike, with 401 invalid_credentials', async () => {
    const user = await buildUser(t.deps);
    const wrong = await readResponse(await signInAs(user.email, 'wrong password!'));
    const unknown = await readResponse(await signInAs('nobody@example.test', user.password));
    expect(wrong).toEqual({ status: 401, body: { code: 'invalid_credentials', message: expect.any(String) } });
    expect(unknown).toEqual(wrong);
  });

  it('never signs in a user without a password (as admin bootstrap makes them)', async () => {
    const tenant = await buildTenant(t.deps);
    const user = await t.deps.db.users.findOne({ _id: tenant.userId });
    expect(user?.passwordHash).toBeNull();
    // Give the password-less user an email, so only the missing password stands in the way.
    await t.deps.db.userEmails.insertOne({
      _id: 'nopassword@example.test',
      userId: tenant.userId,
      createdAt: new Date(),
    });
    await t.deps.db.users.updateOne({ _id: tenant.userId }, { $set: { email: 'nopassword@example.test' } });
    for (const password of ['', 'anything at all']) {
      await expect(
        signIn(t.deps, { email: 'nopassword@example.test', password, address: newClientAddress() }),
      ).rejects.toMatchObject({
        code: 'invalid_credentials',
      });
    }
  });

  it('reports every validation issue with its path', async () => {
    const { status, body } = await readResponse(await postJson(server, '/auth/signin', { email: 'nope' }));
    expect(status).toBe(400);
    const paths = (body?.details as { path: string[] }[]).map((d) => d.path.join('.')).sort();
    expect(paths).toEqual(['body.email', 'body.password']);
  });
});

describe('sign-in rate limits', () => {
  it(`refuses an account after ${LOGIN_FAILURES_PER_ACCOUNT} failures, right password included, until the window ends`, async () => {
    const user = await buildUser(t.deps);
    const other = await buildUser(t.deps);
    for (let i = 0; i < LOGIN_FAILURES_PER_ACCOUNT; i++) {
      expect((await signInAs(user.email, `wrong-${i}-password`)).status).toBe(401);
    }
    const refused = await signInAs(user.email, user.password);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    // Other accounts are not affected, even from the attacker's address.
    expect((await signInAs(other.email, other.password)).status).toBe(200);

    clock.advance(retryAfter * 1000);
    expect((await signInAs(user.email, user.password)).status).toBe(200);
  });

  it(`refuses an address after ${LOGIN_FAILURES_PER_ADDRESS} failures across accounts`, async () => {
    const user = await buildUser(t.deps);
    const address = newClientAddress();
    for (let i = 0; i < LOGIN_FAILURES_PER_ADDRESS; i++) {
      expect((await signInAs(`guess-${i}@example.test`, 'some password', address)).status).toBe(401);
    }
    const refused = await signInAs(user.email, user.password, address);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await signInAs(user.email, user.password, newClientAddress())).status).toBe(200);
  });
});

describe('sessions', () => {
  it('ends on sign-out; signing out again is harmless', async () => {
    const user = await buildUser(t.deps);
    expect((await whoami(user.session)).status).toBe(200);
    expect((await postJson(server, '/auth/signout', undefined, { bearer: user.session })).status).toBe(204);
    expect(await readResponse(await whoami(user.session))).toMatchObject({
      status: 401,
      body: { code: 'invalid_session' },
    });
    expect((await postJson(server, '/auth/signout', undefined, { bearer: user.session })).status).toBe(204);
  });

  it('answers 401 invalid_session without a session', async () => {
    expect(await readResponse(await postJson(server, '/auth/signout', undefined))).toMatchObject({
      status: 401,
      body: { code: 'invalid_session' },
    });
    expect(await readResponse(await server.request('/auth/session'))).toMatchObject({
      status: 401,
      body: { code: 'invalid_session' },
    });
  });

  it('expires after 14 days', async () => {
    const user = await buildUser(t.deps);
    clock.advance(14 * 86_400_000 - 1_000);
    expect((await whoami(user.session)).status).toBe(200);
    clock.advance(1_000);
    expect(await readResponse(await whoami(user.session))).toMatchObject({
      status: 401,
      body: { code: 'invalid_session' },
    });
  });
});
