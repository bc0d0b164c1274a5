import type { Collection } from 'mongodb';
import type { CoreDeps } from '../context.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';
import type { DomainEvent } from './documents.js';
import { dispatchEvent, relayEvents } from './relay.js';

export const RELAY_SWEEP_EVERY_MS = 15_000;
/** Documents changed this long before the last sweep are looked at again (clocks and slow writes). */
const OVERLAP_MS = 2 * 60_000;
/** How far back the first sweep of a database looks. */
const FIRST_LOOKBACK_MS = 60 * 60_000;
/** An event not dispatched this long after it was relayed lost its dispatcher (a process died). */
const UNDISPATCHED_AFTER_MS = 10_000;
/** Delivered events and their receipts are kept this long, then deleted. */
export const OUTBOX_RETENTION_MS = 7 * 24 * 60 * 60_000;

type EventSource = Collection<{ _id: string; updatedAt: Date; events?: DomainEvent[] }>;

/**
 * Finishes relays a process did not: events on recently changed documents that are missing from the
 * outbox (the process died between its write and the relay), and outbox events never dispatched.
 * Its reads cover every recent post, so like the relay it waits for publishing to give way.
 */
export async function sweepEvents(deps: CoreDeps): Promise<void> {
  // Only the turn is waited for: the relays the sweep makes take their own turns after it.
  await deps.jobs.afterPublishing(() => Promise.resolve());
  const now = deps.now();
  const sources: [string, EventSource][] = [
    ['posts', deps.db.posts as unknown as EventSource],
    ['generation_jobs', deps.db.generationJobs as unknown as EventSource],
    ['post_insights', deps.db.postInsights as unknown as EventSource],
  ];
  for (const [name, source] of sources) {
    const mark = await deps.db.relayMarks.findOne({ _id: name });
    const from = new Date(mark ? mark.scannedTo.getTime() - OVERLAP_MS : now.getTime() - FIRST_LOOKBACK_MS);
    const docs = await source
      .find({ updatedAt: { $gte: from }, 'events.0': { $exists: true } }, { projection: { events: 1 } })
      .toArray();
    await relayEvents(
      deps,
      await missingFromOutbox(
        deps,
        docs.flatMap((doc) => doc.events ?? []),
      ),
    );
    await deps.db.relayMarks.updateOne({ _id: name }, { $set: { scannedTo: now } }, { upsert: true });
  }
  const stranded = await deps.db.outbox
    .find({ dispatched: false, relayedAt: { $lte: new Date(now.getTime() - UNDISPATCHED_AFTER_MS) } })
    .project<{ _id: string }>({ _id: 1 })
    .toArray();
  for (const { _id } of stranded) await dispatchEvent(deps, _id);
}

export const relaySweepJob = definePeriodicJob('events.relay-sweep', sweepEvents);

/** Forgets delivered events and their receipts after OUTBOX_RETENTION_MS (hourly: a week needs no finer grain). */
export async function purgeOldEvents(deps: CoreDeps): Promise<void> {
  const expired = new Date(deps.now().getTime() - OUTBOX_RETENTION_MS);
  await deps.db.outbox.deleteMany({ relayedAt: { $lt: expired } });
  await deps.db.eventReceipts.deleteMany({ at: { $lt: expired } });
}

export const purgeOldEventsJob = definePeriodicJob('events.purge-old', purgeOldEvents);

/** The events the outbox lacks, found with one read per 500 rather than an insert attempt each. */
async function missingFromOutbox(deps: CoreDeps, events: readonly DomainEvent[]): Promise<DomainEvent[]> {
  const present = new Set<string>();
  for (let i = 0; i < events.length; i += 500) {
    const ids = events.slice(i, i + 500).map((event) => event.id);
    const found = await deps.db.outbox
      .find({ _id: { $in: ids } })
      .project<{ _id: string }>({ _id: 1 })
      .toArray();
    for (const { _id } of found) present.add(_id);
  }
  return events.filter((event) => !present.has(event.id));
}
