import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps } from '../context.js';
import type { Logger } from '../../logger.js';
import { claimLease, releaseLease } from '../db/leases.js';
import { toAppError } from '../errors.js';

/** Why the bot will not do what a chat user asked, in words shown only to them. */
export type RefusalReason =
  'not_linked' | 'link_revoked' | 'not_an_approver' | 'no_channel' | 'bad_input' | 'already_handled';

/** A refusal for the person who asked (ephemeral); never an internal failure. */
export class ChatRefusal extends Error {
  override readonly name = 'ChatRefusal';

  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What the person is told when what they asked failed: a refusal in its own words; anything else is
 * logged (as `what` failing) and told in words that give nothing away.
 */
export function failureText(
  logger: Logger,
  error: unknown,
  what: string,
  fields: Record<string, unknown> = {},
): string {
  if (error instanceof ChatRefusal) return error.message;
  return toAppError(error, logger, what, fields).message;
}

const CHAT_LEASE_TTL_MS = 30_000;

/**
 * Runs `fn` holding the lease `key`, waiting up to `waitMs` for another holder to finish: chat
 * records that two people may change at once are written one change at a time (FerretDB rewrites
 * whole documents, so interleaved writes would lose one). The wait is the lease's own length: a
 * second click on a busy machine waits its turn (it has been acknowledged already) rather than
 * being told something went wrong, and a holder that died is outlived.
 */
export async function withChatLease<T>(
  deps: CoreDeps,
  key: string,
  fn: () => Promise<T>,
  waitMs = CHAT_LEASE_TTL_MS,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lease = await claimLease(deps.db, key, { ttlMs: CHAT_LEASE_TTL_MS });
    if (lease) {
      try {
        return await fn();
      } finally {
        await releaseLease(deps.db, lease);
      }
    }
    if (Date.now() > deadline) throw new Error(`the chat record ${key} stayed busy`);
    await sleep(50 + Math.random() * 100);
  }
}
