import { z } from 'zod';
import type { Actor } from '../actor.js';
import type { CoreDeps } from '../context.js';
import { isDuplicateKeyError } from '../errors.js';
import { defineJobHandle } from '../jobs/job-handle.js';
import type { DomainEvent, EventType, OutboxDoc } from './documents.js';

/**
 * Delivers one outbox event to every consumer; on the due-task lane, so one worker runs it at a time.
 * It only reports, so the lane runs it after every due publish and status poll.
 */
export const deliverEventHandle = defineJobHandle({
  name: 'events.deliver',
  data: z.object({ eventId: z.string() }),
  queue: 'due-tasks',
  priority: 'reporting',
});

/** An event about `subjectId`; its id is the subject's and the type's, so one change makes one event. */
export function domainEvent(
  type: EventType,
  subject: { workspaceId: string; subjectId: string; actor: Actor; generationJobId?: string | undefined },
  at: Date,
): DomainEvent {
  const { generationJobId, ...rest } = subject;
  return { id: `${subject.subjectId}:${type}`, type, ...rest, ...(generationJobId ? { generationJobId } : {}), at };
}

/**
 * Copies events already stored on their documents into the outbox and enqueues their delivery. Called
 * right after the write that recorded them; if this process dies first, the relay sweep does it. Never
 * throws: the change is stored, and the sweep retries what failed here.
 */
export async function relayEvents(deps: CoreDeps, events: readonly DomainEvent[]): Promise<void> {
  for (const event of events) {
    try {
      await relayEvent(deps, event);
    } catch (error) {
      deps.logger.warn({ err: error, eventId: event.id }, 'relaying an event failed; the relay sweep will retry');
    }
  }
}

async function relayEvent(deps: CoreDeps, event: DomainEvent): Promise<void> {
  const { id, ...fields } = event;
  const doc: OutboxDoc = { _id: id, ...fields, relayedAt: deps.now(), dispatched: false };
  try {
    await deps.db.outbox.insertOne(doc);
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    const stored = await deps.db.outbox.findOne({ _id: id }, { projection: { dispatched: 1 } });
    if (stored?.dispatched !== false) return;
  }
  await dispatchEvent(deps, id);
}

/** Enqueues the delivery of an outbox event and notes that it was (a second enqueue is harmless). */
export async function dispatchEvent(deps: CoreDeps, eventId: string): Promise<void> {
  await deps.jobs.enqueue(deliverEventHandle, { eventId });
  await deps.db.outbox.updateOne({ _id: eventId }, { $set: { dispatched: true } });
}
