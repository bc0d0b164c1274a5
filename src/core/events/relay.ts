import { z } from 'zod';
import type { Actor } from '../actor.js';
import type { ProviderId } from '../platforms/documents.js';
import type { CoreDeps } from '../context.js';
import { isDuplicateKeyError } from '../errors.js';
import { defineJobHandle } from '../jobs/job-handle.js';
import type { JobQueue } from '../jobs/queue.js';
import type { DomainEvent, EventType, OutboxDoc } from './documents.js';
import { logFailure } from '../db/unreachable.js';

/**
 * Delivers outbox events to every consumer; on the due-task lane, so one worker runs it at a time.
 * It only reports, so the lane runs it after every due publish and status poll. One task carries
 * the events of one relay batch (`{ eventId }`, the shape of one event a task, is still read).
 */
export const deliverEventHandle = defineJobHandle({
  name: 'events.deliver',
  data: z.preprocess(
    (raw) => (raw && typeof raw === 'object' && 'eventId' in raw ? { eventIds: [raw.eventId] } : raw),
    z.object({ eventIds: z.array(z.string()).min(1) }),
  ),
  queue: 'due-tasks',
  priority: 'reporting',
});

/** An event about `subjectId`; its id is the subject's and the type's, so one change makes one event. */
export function domainEvent(
  type: EventType,
  subject: {
    workspaceId: string;
    subjectId: string;
    actor: Actor;
    generationJobId?: string | undefined;
    provider?: ProviderId | null | undefined;
  },
  at: Date,
): DomainEvent {
  const { generationJobId, provider, ...rest } = subject;
  return {
    id: `${subject.subjectId}:${type}`,
    type,
    ...rest,
    ...(generationJobId ? { generationJobId } : {}),
    ...(provider ? { provider } : {}),
    at,
  };
}

/** Events waiting for the next batch of a process (per job queue), and the batch being written. */
interface Relay {
  queued: DomainEvent[];
  next: Promise<void> | null;
  writing: Promise<void> | null;
}
const relays = new WeakMap<JobQueue, Relay>();

/**
 * Copies events already stored on their documents into the outbox and enqueues their delivery, once
 * publishing in this process gives way (JobQueue.afterPublishing): the relay only reports, so its writes
 * never compete with a due post's. Called right after the write that recorded them, without waiting
 * (the promise is settled when the events are written); if this process dies first, the relay sweep
 * does it. Never throws: the change is stored, and the sweep retries what failed here.
 *
 * Events relayed while a batch waits or is written go together in the next one (one outbox insert
 * and a delivery task per DELIVERY_BATCH events, not three writes an event), so a minute of busy
 * publishing costs the database a handful of writes once it is over.
 */
export function relayEvents(deps: CoreDeps, events: readonly DomainEvent[]): Promise<void> {
  if (events.length === 0) return Promise.resolve();
  let relay = relays.get(deps.jobs);
  if (!relay) relays.set(deps.jobs, (relay = { queued: [], next: null, writing: null }));
  const current = relay;
  current.queued.push(...events);
  current.next ??= (async () => {
    await current.writing;
    await deps.jobs.afterPublishing(async () => {
      current.next = null;
      const batch = current.queued.splice(0);
      current.writing = writeBatch(deps, batch);
      await current.writing;
      current.writing = null;
    });
  })();
  return current.next;
}

/** Events a delivery task carries at most, so one slow event holds few others back. */
const DELIVERY_BATCH = 200;

/**
 * The delivery task first, then the outbox documents, already marked dispatched: a delivery that
 * runs before its documents are in finds them missing and is retried; a process that dies between
 * the two leaves events missing from the outbox, which the sweep relays again.
 */
async function writeBatch(deps: CoreDeps, batch: readonly DomainEvent[]): Promise<void> {
  const unique = [...new Map(batch.map((event) => [event.id, event])).values()];
  try {
    for (let i = 0; i < unique.length; i += DELIVERY_BATCH) {
      const eventIds = unique.slice(i, i + DELIVERY_BATCH).map((event) => event.id);
      await deps.jobs.enqueue(deliverEventHandle, { eventIds });
    }
    const relayedAt = deps.now();
    const docs = unique.map(({ id, ...fields }): OutboxDoc => ({ _id: id, ...fields, relayedAt, dispatched: true }));
    await deps.db.outbox.insertMany(docs, { ordered: false }).catch((error: unknown) => {
      // Events relayed before (the sweep and a process both relayed them) keep their first copy.
      if (!onlyDuplicates(error)) throw error;
    });
  } catch (error) {
    logFailure(
      deps.logger,
      'warn',
      error,
      { eventIds: unique.map((event) => event.id) },
      'relaying events failed; the relay sweep will retry',
    );
  }
}

/** Enqueues the delivery of an outbox event and notes that it was (a second enqueue is harmless). */
export async function dispatchEvent(deps: CoreDeps, eventId: string): Promise<void> {
  await deps.jobs.enqueue(deliverEventHandle, { eventIds: [eventId] });
  await deps.db.outbox.updateOne({ _id: eventId }, { $set: { dispatched: true } });
}

/** True when every write a bulk insert refused was refused as a duplicate `_id`. */
function onlyDuplicates(error: unknown): boolean {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (!Array.isArray(writeErrors)) return isDuplicateKeyError(error);
  return writeErrors.length > 0 && writeErrors.every((writeError) => isDuplicateKeyError(writeError));
}
