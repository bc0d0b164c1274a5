import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger.js';

/**
 * The driver's errors for a database it cannot reach (refused or dropped connections, no server to
 * select, a pool cleared by a network error), by name: wrappers such as Agenda's keep the name.
 */
const UNREACHABLE = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoPoolClearedError',
  'MongoTopologyClosedError',
]);

/** True when `error`, or an error it was caused by, says the database cannot be reached. */
export function isDatabaseUnreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (UNREACHABLE.has(current.name)) return true;
    current = current.cause;
  }
  return false;
}

/**
 * Logs a failure at `level` with its error (its stack too unless `stack` is false: then its message
 * as `reason`), except one caused by the database being unreachable: that goes to debug, since the
 * database watch (src/db/availability.ts) says it once for the whole outage, not once per query a
 * second in every loop that retries.
 */
export function logFailure(
  logger: Logger,
  level: 'warn' | 'error',
  error: unknown,
  fields: Record<string, unknown>,
  message: string,
  { stack = true }: { stack?: boolean } = {},
): void {
  const reason = error instanceof Error ? error.message : String(error);
  if (isDatabaseUnreachable(error)) logger.debug({ ...fields, reason }, message);
  else if (stack) logger[level]({ err: error, ...fields }, message);
  else logger[level]({ ...fields, reason }, message);
}

/**
 * Runs `step` again, every `everyMs`, while it fails because the database is unreachable, for up to
 * `forMs`: work that needs the database waits for it rather than counting the outage as its own
 * failure. Any other failure, or one after `forMs`, is thrown. Only for steps safe to run twice.
 */
export async function retryWhileUnreachable<T>(step: () => Promise<T>, forMs: number, everyMs = 1_000): Promise<T> {
  const until = Date.now() + forMs;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (!isDatabaseUnreachable(error) || Date.now() >= until) throw error;
      await sleep(everyMs);
    }
  }
}
