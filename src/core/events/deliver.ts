import type { CoreDeps } from '../context.js';
import { defineJob, type JobDefinition } from '../jobs/define-job.js';
import { isDuplicateKeyError } from '../errors.js';
import type { DomainEvent, OutboxDoc } from './documents.js';
import { deliverEventHandle } from './relay.js';
import { logFailure } from '../db/unreachable.js';

/** Something that reacts to events (the chat approvals). Delivery is at least once: `handle` must be idempotent. */
export interface EventConsumer {
  /** Stable: receipts are kept under it. */
  readonly name: string;
  handle(deps: CoreDeps, event: DomainEvent): Promise<void>;
}

/** The job delivering a batch of events to `consumers`; retried with backoff until every consumer has handled each. */
export function eventDeliveryJob(consumers: readonly EventConsumer[]): JobDefinition<{ eventIds: string[] }> {
  return defineJob({
    ...deliverEventHandle,
    // Some 47 minutes of retries (2 s doubling to 10 min): a consumer that fails only because the
    // database or a chat platform is away gets its events once they are back, not lost after 2 minutes.
    retry: { maxRetries: 12, delayMs: 2_000, maxDelayMs: 600_000 },
    lockLifetimeMs: 60_000,
    perform: ({ eventIds }, { deps }) => deliverEvents(deps, consumers, eventIds),
  });
}

/** Delivers each event in turn; the first failure is thrown after every event has had its turn. */
export async function deliverEvents(
  deps: CoreDeps,
  consumers: readonly EventConsumer[],
  eventIds: readonly string[],
): Promise<void> {
  let failure: Error | undefined;
  for (const eventId of eventIds) {
    try {
      await deliverEvent(deps, consumers, eventId);
    } catch (error) {
      failure ??= error instanceof Error ? error : new Error(String(error));
    }
  }
  if (failure !== undefined) throw failure;
}

/**
 * Hands the event to each consumer that has no receipt for it yet, and records a receipt when one
 * succeeds; a failure is thrown after the others have had their turn, so only it is retried. An
 * event not in the outbox yet (its relay enqueues the delivery before it inserts) is retried too.
 */
export async function deliverEvent(
  deps: CoreDeps,
  consumers: readonly EventConsumer[],
  eventId: string,
): Promise<void> {
  const doc = await deps.db.outbox.findOne({ _id: eventId });
  if (!doc) throw new Error(`the event ${eventId} is not in the outbox yet`);
  const event = eventOf(doc);
  let failure: Error | undefined;
  for (const consumer of consumers) {
    const receiptId = `${consumer.name}:${eventId}`;
    if (await deps.db.eventReceipts.findOne({ _id: receiptId })) continue;
    try {
      await consumer.handle(deps, event);
    } catch (error) {
      logFailure(
        deps.logger,
        'warn',
        error,
        { eventId, consumer: consumer.name },
        'an event consumer failed; it will be retried',
      );
      failure ??= error instanceof Error ? error : new Error(String(error));
      continue;
    }
    try {
      await deps.db.eventReceipts.insertOne({ _id: receiptId, at: deps.now() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
  if (failure !== undefined) throw failure;
}

function eventOf(doc: OutboxDoc): DomainEvent {
  const { _id, relayedAt: _relayedAt, dispatched: _dispatched, ...fields } = doc;
  return { id: _id, ...fields };
}
