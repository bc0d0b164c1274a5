import type { CoreDeps } from '../context.js';
import { claimLease, releaseLease, renewLease } from '../db/leases.js';
import { isDuplicateKeyError } from '../errors.js';
import { actOnCard, type CardAction, type CardActor } from './actions.js';
import type { ChatCardActionDoc } from './documents.js';
import type { ApprovalCard, CardPlace } from './gateway.js';

/**
 * How long the process that acknowledged a click is trusted to be carrying it out before the worker's
 * recovery job may: well past a normal action, short enough that a person is not left waiting long.
 */
export const CARD_ACTION_CLAIM_MS = 30_000;

/**
 * How long one run's claim lasts unless renewed; it is renewed every third of it while the action
 * runs, so a long wait for a busy card keeps it and a killed process's claim lapses within this.
 */
const RUN_CLAIM_MS = 30_000;

/** The claim one process holds while it runs a recorded action (an insert-once lease). */
export const cardActionLeaseKey = (id: string): string => `chat-card-action:${id}`;

/** Where a clicked card is: its chat and channel, and its message. */
export interface CardWhere {
  place: CardPlace;
  messageId: string;
}

/**
 * Records a click before it is acknowledged: one insert, keyed by the platform's delivery id. False
 * when the delivery was recorded before (a redelivery or replay): acknowledge it and do nothing.
 */
export async function recordCardAction(
  deps: CoreDeps,
  deliveryId: string,
  who: CardActor,
  action: CardAction,
  where: CardWhere,
): Promise<boolean> {
  const now = deps.now();
  const doc: ChatCardActionDoc = {
    _id: deliveryId,
    actor: who,
    action,
    place: where.place,
    messageId: where.messageId,
    state: 'pending',
    claimedUntil: new Date(now.getTime() + CARD_ACTION_CLAIM_MS),
    createdAt: now,
    endedAt: null,
  };
  try {
    await deps.db.chatCardActions.insertOne(doc);
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/**
 * Carries out a recorded click right after its acknowledgement, in the process that took it: the
 * card as it now stands, for the adapter to redraw; null when another process has it (recovery took
 * it over). A refusal is thrown for the adapter to tell the person; the click is done either way.
 */
export async function carryOutCardAction(deps: CoreDeps, id: string): Promise<ApprovalCard | null> {
  const ran = await withRecordedAction(deps, id, async (doc) => {
    try {
      return await actOnCard(deps, doc.actor, doc.action);
    } finally {
      await endCardAction(deps, id, 'done');
    }
  });
  return ran ?? null;
}

/**
 * Runs `fn` on a pending recorded action holding its claim, so no two processes run one action at
 * once (actOnCard is safe against a second run; the claim keeps it from racing). Undefined when the
 * claim is held elsewhere or the action has ended.
 */
export async function withRecordedAction<T>(
  deps: CoreDeps,
  id: string,
  fn: (doc: ChatCardActionDoc) => Promise<T>,
): Promise<T | undefined> {
  // Decided by an insert (claimLease): FerretDB's conditional updates are not atomic.
  const lease = await claimLease(deps.db, cardActionLeaseKey(id), { ttlMs: RUN_CLAIM_MS });
  if (!lease) return undefined;
  const renew = setInterval(() => {
    renewLease(deps.db, lease, RUN_CLAIM_MS).catch((error: unknown) => {
      deps.logger.warn({ err: error, cardActionId: id }, 'renewing a card action claim failed');
    });
  }, RUN_CLAIM_MS / 3);
  try {
    const doc = await deps.db.chatCardActions.findOne({ _id: id });
    if (!doc || doc.state !== 'pending') return undefined;
    return await fn(doc);
  } finally {
    clearInterval(renew);
    await releaseLease(deps.db, lease);
  }
}

/** Ends a recorded action; `recovered` when the worker's recovery job ended it (counted by bench:scale). */
export async function endCardAction(
  deps: CoreDeps,
  id: string,
  state: 'done' | 'expired',
  recovered = false,
): Promise<void> {
  await deps.db.chatCardActions.updateOne({ _id: id }, { $set: { state, endedAt: deps.now(), recovered } });
}
