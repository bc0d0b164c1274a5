import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps, Scope } from '../context.js';
import type { IdempotencyKeyDoc, IdempotencyOutcomeDoc } from './documents.js';
import { AppError, isDuplicateKeyError } from '../errors.js';
import { claimAttempt, keepAttemptAlive, releaseAttempt, type Attempt } from './attempts.js';
import { idempotencyKeyId } from './key.js';

/** What is kept for a key and replayed: a success (status and serialized body) or a client error. */
export type IdempotentOutcome = IdempotencyOutcomeDoc['outcome'];

/** How long an executor's attempt lasts without a heartbeat before another request may take over. */
export const ATTEMPT_TTL_MS = 60_000;

/** How long a request waits for a concurrent one with the same key before giving up with a conflict. */
export const WAIT_LIMIT_MS = 30_000;

/** What a request that gave up waiting tells the client: try again shortly, with the same key. */
const RETRY_AFTER_SECONDS = 5;

export interface IdempotentRequest {
  /** The client's Idempotency-Key (already checked against IdempotencyKeySchema). */
  key: string;
  /** From requestFingerprint: what the key is bound to. */
  fingerprint: string;
}

export interface IdempotentResult {
  outcome: IdempotentOutcome;
  /** True when the outcome is an earlier request's, not this one's execution. */
  replayed: boolean;
}

/**
 * Runs `execute` at most once per workspace and key: the first request binds the key to its
 * fingerprint and executes; the same request again (or concurrently) gets the kept outcome;
 * a different request with the key is `idempotency_key_reused`. `execute` returns what to keep;
 * when it throws, nothing is kept and the attempt is released, so a retry executes afresh. It gets
 * the binding's id as a seed (`Scope.idempotencySeed`): an executor that died after doing the work but
 * before keeping the outcome is followed, once its attempt lapses, by one that must find that work.
 */
export async function runIdempotent(
  deps: CoreDeps,
  scope: Scope,
  request: IdempotentRequest,
  execute: (seed: string) => Promise<IdempotentOutcome>,
  options: { attemptTtlMs?: number; waitLimitMs?: number } = {},
): Promise<IdempotentResult> {
  const ttlMs = options.attemptTtlMs ?? ATTEMPT_TTL_MS;
  const binding = await bindKey(deps, scope, request);
  const deadline = Date.now() + (options.waitLimitMs ?? WAIT_LIMIT_MS);
  let delayMs = 10;
  for (;;) {
    const kept = await readOutcome(deps, binding.bindingId);
    if (kept) return { outcome: kept, replayed: true };
    const attempt = await claimAttempt(deps, binding, ttlMs);
    if (attempt) return executeAttempt(deps, binding, attempt, execute, ttlMs);
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) {
      throw new AppError(
        'conflict',
        'A request with this Idempotency-Key is still being processed; retry it later',
        undefined,
        RETRY_AFTER_SECONDS,
      );
    }
    await sleep(Math.min(delayMs, remainingMs));
    delayMs = Math.min(delayMs * 2, 250);
  }
}

/** The key's binding, made by this request when it is the first; another request's is a 409. */
async function bindKey(deps: CoreDeps, scope: Scope, request: IdempotentRequest): Promise<IdempotencyKeyDoc> {
  const keyId = idempotencyKeyId(scope.workspaceId, request.key);
  let binding = await readBinding(deps, keyId);
  if (!binding) {
    const fresh: IdempotencyKeyDoc = {
      _id: keyId,
      kind: 'key',
      keyId,
      bindingId: randomUUID(),
      workspaceId: scope.workspaceId,
      fingerprint: request.fingerprint,
      createdAt: deps.now(),
    };
    try {
      await deps.db.idempotency.insertOne(fresh);
      binding = fresh;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // A concurrent request bound it first: its binding is the one that counts.
      binding = await readBinding(deps, keyId);
      if (!binding) throw error;
    }
  }
  if (binding.fingerprint !== request.fingerprint || binding.workspaceId !== scope.workspaceId) {
    throw new AppError(
      'idempotency_key_reused',
      'This Idempotency-Key was already used for a different request (another operation or body); use a new key',
    );
  }
  return binding;
}

async function executeAttempt(
  deps: CoreDeps,
  binding: IdempotencyKeyDoc,
  attempt: Attempt,
  execute: (seed: string) => Promise<IdempotentOutcome>,
  ttlMs: number,
): Promise<IdempotentResult> {
  // An executor may have kept its outcome between our read and our claim: replay, do not redo.
  const kept = await readOutcome(deps, binding.bindingId);
  if (kept) return { outcome: kept, replayed: true };

  const heartbeat = keepAttemptAlive(deps, attempt, ttlMs);
  let outcome: IdempotentOutcome;
  try {
    outcome = await execute(binding.bindingId);
  } catch (error) {
    await heartbeat.stop();
    await releaseAttempt(deps, attempt);
    throw error;
  }
  await heartbeat.stop();
  try {
    await deps.db.idempotency.insertOne({
      _id: outcomeId(binding.bindingId),
      kind: 'outcome',
      keyId: binding.keyId,
      outcome,
      createdAt: deps.now(),
    });
  } catch (error) {
    if (isDuplicateKeyError(error)) {
      // An executor presumed dead finished after all and kept its outcome first; everyone gets that one.
      const first = await readOutcome(deps, binding.bindingId);
      if (first) return { outcome: first, replayed: true };
    }
    await releaseAttempt(deps, attempt);
    throw error;
  }
  // The attempt stays unreleased: with the outcome kept, nobody needs to claim it again.
  return { outcome, replayed: false };
}

async function readBinding(deps: CoreDeps, keyId: string): Promise<IdempotencyKeyDoc | null> {
  const doc = await deps.db.idempotency.findOne({ _id: keyId });
  return doc?.kind === 'key' ? doc : null;
}

async function readOutcome(deps: CoreDeps, bindingId: string): Promise<IdempotentOutcome | null> {
  const doc = await deps.db.idempotency.findOne({ _id: outcomeId(bindingId) });
  return doc?.kind === 'outcome' ? doc.outcome : null;
}

function outcomeId(bindingId: string): string {
  return `${bindingId}#outcome`;
}
