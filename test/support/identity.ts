import { randomUUID } from 'node:crypto';
import type { CoreDeps, Scope } from '../../src/core/context.js';
import { createSession } from '../../src/core/identity/sessions.js';
import { signUp, type SignUpResult } from '../../src/core/identity/sign-up.js';
import type { TestDatabase } from './db.js';
import type { TestServer } from './http.js';

/** A clock a test moves by hand, for expiries, intervals and rate-limit windows. */
export interface TestClock {
  now: () => Date;
  advance(ms: number): void;
}

/** A clock starting at `start` (now by default) that only moves when told. */
export function testClock(start = new Date()): TestClock {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    advance(ms) {
      t += ms;
    },
  };
}

/** The same test database with core deps reading `clock`. */
export function withClock(database: TestDatabase, clock: TestClock): TestDatabase {
  return { ...database, deps: { ...database.deps, now: clock.now } };
}

/** A signed-up user with a session, their own workspace and the scope they act in there. */
export interface TestUser extends SignUpResult {
  email: string;
  password: string;
  session: string;
  scope: Scope;
}

/** Signs a new person up (open sign-up, so each gets a workspace of their own) and signs them in. */
export async function buildUser(deps: CoreDeps, overrides: { email?: string; name?: string } = {}): Promise<TestUser> {
  const email = overrides.email ?? `user-${randomUUID()}@example.test`;
  const password = `pw-${randomUUID()}`;
  const result = await signUp(deps, { email, password, name: overrides.name ?? 'Test User' }, { openSignup: true });
  const { token } = await createSession(deps, result.user.id);
  return {
    ...result,
    email,
    password,
    session: token,
    scope: {
      workspaceId: result.workspaceId,
      accountId: result.accountId,
      actor: { type: 'user', userId: result.user.id },
    },
  };
}

/** POSTs JSON (or nothing) with an optional session or key and extra headers. */
export function postJson(
  server: TestServer,
  path: string,
  body: unknown,
  options: { bearer?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  return server.request(path, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** The status and parsed JSON body of a response (null for an empty one). */
export async function readResponse(
  response: Response,
): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

let subnet = 0;

/** A fresh client address per call (for servers that trust X-Forwarded-For), so tests never share an address's limits. */
export function newClientAddress(): string {
  subnet += 1;
  return `10.${subnet}.0.1`;
}
