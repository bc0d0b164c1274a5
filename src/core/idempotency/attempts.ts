import { randomUUID } from 'node:crypto';
import type { CoreDeps } from '../context.js';
import type { IdempotencyAttemptDoc } from './documents.js';
import { isDuplicateKeyError } from '../errors.js';
import { logFailure } from '../db/unreachable.js';

/** An attempt this caller won: it alone executes the keyed request until it finishes or its lease runs out. */
export interface Attempt {
  id: string;
  holder: string;
}

/**
 * Tries to become the executor of a binding. The newest attempt is found by walking `_id`s
 * `${bindingId}#0, #1, …` (a key rarely sees more than one); when it is released or expired,
 * inserting the next number decides the winner, because the unique `_id` is atomic on FerretDB
 * too (its findOneAndUpdate is not). Attempts are never deleted one by one, so the walk has no gaps.
 */
export async function claimAttempt(
  deps: CoreDeps,
  binding: { keyId: string; bindingId: string },
  ttlMs: number,
): Promise<Attempt | null> {
  const now = deps.now();
  let next = 0;
  let latest: IdempotencyAttemptDoc | null = null;
  for (;;) {
    const doc = await deps.db.idempotency.findOne({ _id: attemptId(binding.bindingId, next) });
    if (doc?.kind !== 'attempt') break;
    latest = doc;
    next += 1;
  }
  if (latest && latest.releasedAt === null && latest.expiresAt > now) return null;

  const attempt: Attempt = { id: attemptId(binding.bindingId, next), holder: randomUUID() };
  try {
    await deps.db.idempotency.insertOne({
      _id: attempt.id,
      kind: 'attempt',
      keyId: binding.keyId,
      attempt: next,
      holder: attempt.holder,
      expiresAt: new Date(now.getTime() + ttlMs),
      releasedAt: null,
      createdAt: now,
    });
  } catch (error) {
    if (isDuplicateKeyError(error)) return null;
    throw error;
  }
  return attempt;
}

/**
 * Keeps an attempt alive while its handler runs, so only a dead executor's attempt expires.
 * `stop()` waits for a renewal in flight: FerretDB rewrites whole documents, so a renewal
 * landing after the release could otherwise undo it.
 */
export function keepAttemptAlive(deps: CoreDeps, attempt: Attempt, ttlMs: number): { stop(): Promise<void> } {
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      inFlight = inFlight.then(async () => {
        if (stopped) return;
        const expiresAt = new Date(deps.now().getTime() + ttlMs);
        await deps.db.idempotency
          .updateOne({ _id: attempt.id, holder: attempt.holder }, { $set: { expiresAt } })
          .catch((error: unknown) =>
            logFailure(deps.logger, 'warn', error, {}, 'could not renew an idempotency attempt'),
          );
      });
    },
    Math.max(1, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
    },
  };
}

/** Gives an attempt up (its request failed without an outcome to keep), so a retry can run at once. */
export async function releaseAttempt(deps: CoreDeps, attempt: Attempt): Promise<void> {
  try {
    await deps.db.idempotency.updateOne(
      { _id: attempt.id, holder: attempt.holder },
      { $set: { releasedAt: deps.now() } },
    );
  } catch (error) {
    // The attempt still expires on its own; the request's own error is the one to report.
    logFailure(deps.logger, 'warn', error, {}, 'could not release an idempotency attempt');
  }
}

function attemptId(bindingId: string, attempt: number): string {
  return `${bindingId}#${attempt}`;
}
