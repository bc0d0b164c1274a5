import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../../src/core/identity/sign-up.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { postJson, readResponse } from '../support/identity.js';

let t: TestDatabase;
let closed: TestServer;
let open: TestServer;

beforeAll(async () => {
  t = await openTestDatabase();
  closed = await startTestServer(t);
  open = await startTestServer(t, { app: { openSignup: true } });
});
afterAll(async () => {
  await closed.stop();
  await open.stop();
  await t.close();
});

const password = 'correct horse battery';

describe('the first sign-up of an install', () => {
  it('makes its person the owner of a new account and workspace, and signs them in', async () => {
    const response = await postJson(closed, '/auth/signup', { email: '  Ada@Example.TEST ', password, name: 'Ada' });
    const { status, body } = await readResponse(response);
    expect(status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(body).toMatchObject({
      token: expect.stringMatching(/^pds_[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
      user: { id: expect.any(String), email: 'ada@example.test', name: 'Ada' },
      workspaceId: expect.any(String),
    });
    const stored = await t.deps.db.users.findOne({ email: 'ada@example.test' });
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(stored)).not.toContain(password);

    const session = await readResponse(
      await closed.request('/auth/session', { headers: { authorization: `Bearer ${String(body?.token)}` } }),
    );
    expect(session.body).toMatchObject({ workspaces: [{ workspaceId: body?.workspaceId, role: 'owner' }] });
  });

  it('then is closed to people without an invitation, leaving their email free', async () => {
    const { status, body } = await readResponse(
      await postJson(closed, '/auth/signup', { email: 'bob@example.test', password, name: 'Bob' }),
    );
    expect(status).toBe(403);
    expect(body).toMatchObject({ code: 'forbidden' });
    expect(await t.deps.db.userEmails.countDocuments({ _id: 'bob@example.test' })).toBe(0);
  });

  it('goes to exactly one of several people signing up at once', async () => {
    const fresh = await openTestDatabase();
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          signUp(fresh.deps, { email: `p${i}@example.test`, password, name: `P${i}` }, { openSignup: false }),
        ),
      );
      const owners = results.filter((r) => r.status === 'fulfilled');
      expect(owners).toHaveLength(1);
      expect(owners[0]?.status === 'fulfilled' && owners[0].value.via).toBe('first_owner');
      for (const r of results.filter((r) => r.status === 'rejected'))
        expect(r.reason).toMatchObject({ code: 'forbidden' });
      expect(await fresh.deps.db.users.countDocuments()).toBe(1);
      expect(await fresh.deps.db.memberships.countDocuments({ role: 'owner' })).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});

describe('open sign-up', () => {
  it('gives each person an account and workspace of their own', async () => {
    const first = await readResponse(
      await postJson(open, '/auth/signup', { email: 'c1@example.test', password, name: 'C1' }),
    );
    const second = await readResponse(
      await postJson(open, '/auth/signup', { email: 'c2@example.test', password, name: 'C2' }),
    );
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body?.workspaceId).not.toBe(second.body?.workspaceId);
    const workspace = await t.deps.db.workspaces.findOne({ _id: String(first.body?.workspaceId) });
    expect(workspace?.name).toBe("C1's workspace");
  });

  it('keeps emails unique, ignoring case and spaces, also when racing', async () => {
    expect((await postJson(open, '/auth/signup', { email: 'dup@example.test', password, name: 'D' })).status).toBe(201);
    const again = await readResponse(
      await postJson(open, '/auth/signup', { email: ' DUP@example.test', password, name: 'D' }),
    );
    expect(again).toMatchObject({ status: 409, body: { code: 'conflict' } });

    const results = await Promise.allSettled(
      ['race@x.test', 'RACE@x.test', 'Race@X.test', ' race@x.test', 'race@x.TEST'].map((email) =>
        signUp(t.deps, { email, password, name: 'R' }, { openSignup: true }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect(r.reason).toMatchObject({ code: 'conflict' });
    expect(await t.deps.db.users.countDocuments({ email: 'race@x.test' })).toBe(1);
  });
});

describe('POST /auth/signup validation', () => {
  it('reports every issue with its path', async () => {
    const { status, body } = await readResponse(await postJson(open, '/auth/signup', {}));
    expect(status).toBe(400);
    const paths = (body?.details as { path: string[] }[]).map((d) => d.path.join('.')).sort();
    expect(paths).toEqual(['body.email', 'body.name', 'body.password']);
  });

  it.each([
    ['a malformed email', { email: 'not-an-email', password, name: 'X' }, 'body.email'],
    ['a 9-character password', { email: 'x@example.test', password: '123456789', name: 'X' }, 'body.password'],
    ['a 201-character password', { email: 'x@example.test', password: 'p'.repeat(201), name: 'X' }, 'body.password'],
    ['a blank name', { email: 'x@example.test', password, name: '   ' }, 'body.name'],
  ])('rejects %s', async (_label, input, path) => {
    const { status, body } = await readResponse(await postJson(open, '/auth/signup', input));
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'invalid_request' });
    expect((body?.details as { path: string[] }[]).map((d) => d.path.join('.'))).toEqual([path]);
  });

  it('accepts a 10-character password', async () => {
    expect(
      (await postJson(open, '/auth/signup', { email: 'ten@example.test', password: '1234567890', name: 'T' })).status,
    ).toBe(201);
  });
});
