import { createHash, randomBytes } from 'node:crypto';
import type { CoreDeps, Scope } from '../context.js';
import type { OAuthStateDoc, ProviderId } from './documents.js';
import { AppError, isDuplicateKeyError } from '../errors.js';

/** How long a connection may sit on a network's consent page before its state stops working. */
export const OAUTH_STATE_TTL_MS = 15 * 60_000;

/**
 * Issues a single-use OAuth `state` for `scope`'s workspace, bound to `binding` (the session id
 * of the signed-in user, or a one-off value of a CLI run). Only hashes are stored.
 */
export async function issueOAuthState(
  deps: CoreDeps,
  scope: Scope,
  binding: string,
  provider: ProviderId = 'tiktok',
): Promise<string> {
  const state = randomBytes(32).toString('base64url');
  const now = deps.now();
  const doc: OAuthStateDoc = {
    _id: sha256(state),
    provider,
    workspaceId: scope.workspaceId,
    accountId: scope.accountId,
    userId: scope.actor.type === 'user' ? scope.actor.userId : null,
    bindingHash: sha256(binding),
    createdAt: now,
    expiresAt: new Date(now.getTime() + OAUTH_STATE_TTL_MS),
  };
  await deps.db.oauthStates.insertOne(doc);
  return state;
}

/**
 * Checks a `state` that came back on the callback and spends it. Unknown, expired and spent
 * states are refused alike; a state started by another session is refused without being spent,
 * so a forged callback cannot burn a person's own connection. Single use is decided by
 * inserting the state's hash into `oauth_state_uses` (atomic on MongoDB and FerretDB alike).
 */
export async function spendOAuthState(
  deps: CoreDeps,
  state: string,
  binding: string,
  network: { provider: ProviderId; name: string } = { provider: 'tiktok', name: 'TikTok' },
): Promise<OAuthStateDoc> {
  const hash = sha256(state);
  const doc = state ? await deps.db.oauthStates.findOne({ _id: hash }) : null;
  // A state issued for another network is as unknown here as a forged one (stored states before
  // Instagram carry `tiktok`).
  if (!doc || doc.expiresAt <= deps.now() || doc.provider !== network.provider) throw stale(network.name);
  if (doc.bindingHash !== sha256(binding)) {
    throw new AppError(
      'forbidden',
      `This ${network.name} connection was started in another browser session. Start it again from the ${network.name} accounts page.`,
    );
  }
  try {
    await deps.db.oauthStateUses.insertOne({ _id: hash, usedAt: deps.now(), expiresAt: doc.expiresAt });
  } catch (error) {
    if (isDuplicateKeyError(error)) throw stale(network.name);
    throw error;
  }
  return doc;
}

/** Deletes states (and their use marks) that expired before `cutoff`; returns how many states went. */
export async function purgeOAuthStates(deps: CoreDeps, cutoff: Date): Promise<number> {
  await deps.db.oauthStateUses.deleteMany({ expiresAt: { $lt: cutoff } });
  return (await deps.db.oauthStates.deleteMany({ expiresAt: { $lt: cutoff } })).deletedCount;
}

function stale(network: string): AppError {
  return new AppError(
    'invalid_request',
    `This ${network} connection link has expired or was already used. Start again from the ${network} accounts page.`,
  );
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
