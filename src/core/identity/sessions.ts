import { randomUUID } from 'node:crypto';
import type { CoreDeps } from '../context.js';
import type { SessionDoc } from './documents.js';
import { AppError } from '../errors.js';
import { findSecretTarget, forgetSecret, registerSecret } from '../db/secret-lookups.js';
import { hashSecret, hasSecretTokenShape, newSecretToken } from './tokens.js';

export const SESSION_TOKEN_PREFIX = 'pds_';
/** How long a session lasts from sign-in; there is no sliding renewal, so a stolen token ages out. */
export const SESSION_TTL_MS = 14 * 86_400_000;

/** A new session: the bearer token is handed out once and only its hash is stored. */
export interface NewSession {
  token: string;
  sessionId: string;
  expiresAt: Date;
}

/** Who a valid session token belongs to. */
export interface SessionIdentity {
  userId: string;
  sessionId: string;
  expiresAt: Date;
}

/** Starts a session for `userId` (after sign-up or a verified sign-in). */
export async function createSession(deps: CoreDeps, userId: string, ttlMs = SESSION_TTL_MS): Promise<NewSession> {
  const token = newSecretToken(SESSION_TOKEN_PREFIX);
  const now = deps.now();
  const doc: SessionDoc = {
    _id: randomUUID(),
    userId,
    hash: hashSecret(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + ttlMs),
  };
  await deps.db.sessions.insertOne(doc);
  await registerSecret(deps.db.secretLookups, 'session', doc.hash, doc._id, doc.expiresAt);
  return { token, sessionId: doc._id, expiresAt: doc.expiresAt };
}

/** Resolves a presented session token, or throws `invalid_session` (malformed, unknown, expired). */
export async function authenticateSession(deps: CoreDeps, token: string): Promise<SessionIdentity> {
  if (!hasSecretTokenShape(token, SESSION_TOKEN_PREFIX)) throw invalidSession();
  const sessionId = await findSecretTarget(deps.db.secretLookups, 'session', hashSecret(token));
  const doc = sessionId === null ? null : await deps.db.sessions.findOne({ _id: sessionId });
  if (!doc || doc.expiresAt <= deps.now()) throw invalidSession();
  return { userId: doc.userId, sessionId: doc._id, expiresAt: doc.expiresAt };
}

/** Ends the session `token` belongs to. Idempotent: an unknown token is already signed out. */
export async function signOut(deps: CoreDeps, token: string): Promise<void> {
  if (!hasSecretTokenShape(token, SESSION_TOKEN_PREFIX)) return;
  const hash = hashSecret(token);
  const sessionId = await findSecretTarget(deps.db.secretLookups, 'session', hash);
  await forgetSecret(deps.db.secretLookups, 'session', hash);
  if (sessionId !== null) await deps.db.sessions.deleteOne({ _id: sessionId });
}

/** Ends every session of a user (after a password change, or from an admin tool). */
export async function signOutEverywhere(deps: CoreDeps, userId: string): Promise<number> {
  return (await deps.db.sessions.deleteMany({ userId })).deletedCount;
}

function invalidSession(): AppError {
  return new AppError('invalid_session', 'The session is invalid or has expired; sign in again');
}
