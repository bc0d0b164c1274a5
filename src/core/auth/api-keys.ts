import { randomUUID } from 'node:crypto';
import type { Surface } from '../actor.js';
import { recordAudit } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import type { ApiKeyDoc } from './documents.js';
import type { VerifiedKey } from './key-cache.js';
import { findSecretTarget, registerSecret } from '../db/secret-lookups.js';
import { AppError, notFound } from '../errors.js';
import { hashSecret, hasSecretTokenShape, newSecretToken } from '../identity/tokens.js';

export const API_KEY_PREFIX = 'service_sk_';
const DISPLAY_PREFIX_CHARS = 8;

/** A key as listings show it: never the secret, only its first characters. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/**
 * Mints a key for a workspace. The clear key is returned once and only its hash is stored. The
 * audit trail names `userId` (who approved it) and `surface` (where they did; the system's by default).
 */
export async function mintApiKey(
  deps: CoreDeps,
  input: { workspaceId: string; accountId: string; userId: string | null; name: string; surface?: Surface | undefined },
): Promise<{ apiKey: string; view: ApiKeyView }> {
  // 256 random bits, stored only as a SHA-256 (see tokens.ts for why a fast hash is right).
  const apiKey = newSecretToken(API_KEY_PREFIX);
  const doc: ApiKeyDoc = {
    _id: randomUUID(),
    workspaceId: input.workspaceId,
    accountId: input.accountId,
    userId: input.userId,
    name: input.name,
    prefix: apiKey.slice(0, API_KEY_PREFIX.length + DISPLAY_PREFIX_CHARS),
    hash: hashSecret(apiKey),
    createdAt: deps.now(),
    revokedAt: null,
  };
  await deps.db.apiKeys.insertOne(doc);
  await registerSecret(deps.db.secretLookups, 'api_key', doc.hash, doc._id);
  const actor = input.userId === null ? { type: 'system' as const } : { type: 'user' as const, userId: input.userId };
  await recordAudit(
    deps,
    { workspaceId: doc.workspaceId, accountId: doc.accountId, actor, surface: input.surface ?? 'system' },
    {
      action: 'api_key.created',
      subject: { type: 'api_key', id: doc._id },
      details: { name: doc.name, prefix: doc.prefix },
    },
  );
  return { apiKey, view: toView(doc, null) };
}

/**
 * Resolves a presented key to its scope, or throws `invalid_api_key` (wrong, malformed or revoked).
 * A key verified before is answered from the process's cache (key-cache.ts), with no round trip.
 */
export async function authenticateApiKey(deps: CoreDeps, presented: string): Promise<Scope> {
  if (!hasSecretTokenShape(presented, API_KEY_PREFIX)) throw invalidKey();
  const hash = hashSecret(presented);
  const cached = await deps.keyCache.lookup(hash);
  const key = cached.key ?? (await readKey(deps, hash));
  if (!key) throw invalidKey();
  if (!cached.key) deps.keyCache.remember(hash, key, cached.generation);
  deps.keyCache.used(key.keyId, deps.now());
  return {
    workspaceId: key.workspaceId,
    accountId: key.accountId,
    actor: { type: 'api_key', keyId: key.keyId, userId: key.userId },
  };
}

async function readKey(deps: CoreDeps, hash: string): Promise<VerifiedKey | null> {
  const keyId = await findSecretTarget(deps.db.secretLookups, 'api_key', hash);
  const doc = keyId === null ? null : await deps.db.apiKeys.findOne({ _id: keyId });
  if (!doc || doc.revokedAt) return null;
  return { keyId: doc._id, workspaceId: doc.workspaceId, accountId: doc.accountId, userId: doc.userId };
}

/** Lists the workspace's keys, newest first. */
export async function listApiKeys(deps: CoreDeps, scope: Scope): Promise<ApiKeyView[]> {
  const docs = await deps.db.apiKeys.find({ workspaceId: scope.workspaceId }).sort({ createdAt: -1 }).toArray();
  const usage = await deps.db.apiKeyUsage.find({ _id: { $in: docs.map((doc) => doc._id) } }).toArray();
  const lastUsed = new Map(usage.map((entry) => [entry._id, entry.lastUsedAt]));
  return docs.map((doc) => toView(doc, lastUsed.get(doc._id) ?? null));
}

/**
 * Revokes one of the workspace's keys. Answers once every process has seen the revocation, so the
 * next call made with the key answers `invalid_api_key` on any replica.
 */
export async function revokeApiKey(deps: CoreDeps, scope: Scope, keyId: string): Promise<void> {
  const result = await deps.db.apiKeys.updateOne(
    { _id: keyId, workspaceId: scope.workspaceId, revokedAt: null },
    { $set: { revokedAt: deps.now() } },
  );
  if (result.matchedCount === 0) {
    const exists = await deps.db.apiKeys.countDocuments({ _id: keyId, workspaceId: scope.workspaceId });
    if (exists === 0) throw notFound('API key');
    return;
  }
  await recordAudit(deps, scope, { action: 'api_key.revoked', subject: { type: 'api_key', id: keyId } });
  await deps.keyCache.revoked(deps.now());
}

function invalidKey(): AppError {
  return new AppError('invalid_api_key', 'The API key is invalid or has been revoked');
}

function toView(doc: ApiKeyDoc, lastUsedAt: Date | null): ApiKeyView {
  return {
    id: doc._id,
    name: doc.name,
    prefix: doc.prefix,
    createdAt: doc.createdAt,
    lastUsedAt,
    revokedAt: doc.revokedAt,
  };
}
