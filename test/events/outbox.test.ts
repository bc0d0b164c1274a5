import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventConsumer } from '../../src/core/events/deliver.js';
import { deliverEvent } from '../../src/core/events/deliver.js';
import type { DomainEvent } from '../../src/core/events/documents.js';
import { domainEvent, relayEvents } from '../../src/core/events/relay.js';
import { OUTBOX_RETENTION_MS, purgeOldEvents, sweepEvents } from '../../src/core/events/relay-sweep.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';

// The outbox without a worker: what the relay and the sweep store, and how delivery retries.
let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

const eventFor = (subjectId: string, at = new Date()): DomainEvent =>
  domainEvent('draft.created', { workspaceId: 'ws-1', subjectId, actor: { type: 'system' } }, at);

/** A post the way a process leaves it if it dies right after its write: the event stored, never relayed. */
async function writeWithoutRelay(event: DomainEvent): Promise<void> {
  await t.db.collection('posts').insertOne({ _id: event.subjectId as never, updatedAt: new Date(), events: [event] });
}

/** The event ids a stored delivery task carries (a batch, or one event in the earlier shape). */
function deliveredIds(data: unknown): string[] {
  const { eventIds, eventId } = data as { eventIds?: string[]; eventId?: string };
  return eventIds ?? (eventId ? [eventId] : []);
}

describe('the event outbox', () => {
  it('relays an event once, however many times it is relayed', async () => {
    const event = eventFor('post-relayed-twice');
    await relayEvents(t.deps, [event]);
    await relayEvents(t.deps, [event]);
    const stored = await t.deps.db.outbox.find({ _id: event.id }).toArray();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ type: 'draft.created', subjectId: 'post-relayed-twice', dispatched: true });
  });

  it('relays events that arrive together with one delivery task for all of them', async () => {
    const events = Array.from({ length: 20 }, (_, i) => eventFor(`post-of-a-busy-minute-${i}`));
    await Promise.all(events.map((event) => relayEvents(t.deps, [event])));
    const ids = new Set(events.map((event) => event.id));
    const stored = await t.deps.db.outbox.find({ _id: { $in: [...ids] } }).toArray();
    expect(stored).toHaveLength(20);
    expect(stored.every((doc) => doc.dispatched)).toBe(true);
    const tasks = (await t.deps.db.dueTasks.find({ name: 'events.deliver' }).toArray()).filter((task) =>
      deliveredIds(task.data).some((id) => ids.has(id)),
    );
    expect(tasks).toHaveLength(1);
    expect(new Set(deliveredIds(tasks[0]!.data))).toEqual(ids);
  });

  it('splits a batch of 450 events into delivery tasks of at most 200', async () => {
    const events = Array.from({ length: 450 }, (_, i) => eventFor(`post-of-a-long-minute-${i}`));
    await Promise.all(events.map((event) => relayEvents(t.deps, [event])));
    const ids = new Set(events.map((event) => event.id));
    const tasks = (await t.deps.db.dueTasks.find({ name: 'events.deliver' }).toArray()).filter((task) =>
      deliveredIds(task.data).some((id) => ids.has(id)),
    );
    expect(tasks.map((task) => deliveredIds(task.data).length).sort((a, b) => a - b)).toEqual([50, 200, 200]);
    expect(new Set(tasks.flatMap((task) => deliveredIds(task.data)))).toEqual(ids);
    expect(await t.deps.db.outbox.countDocuments({ _id: { $in: [...ids] } })).toBe(450);
  });

  it('forgets events and receipts older than the retention, and keeps the rest', async () => {
    const old = new Date(Date.now() - OUTBOX_RETENTION_MS - 60_000);
    const recent = new Date(Date.now() - OUTBOX_RETENTION_MS + 60_000);
    const outboxDoc = (id: string, relayedAt: Date) => ({
      ...eventFor(id),
      _id: `${id}:draft.created`,
      relayedAt,
      dispatched: true,
    });
    const { id: _old, ...oldEvent } = outboxDoc('post-of-last-month', old);
    const { id: _recent, ...recentEvent } = outboxDoc('post-of-last-week', recent);
    await t.deps.db.outbox.insertMany([oldEvent, recentEvent]);
    await t.deps.db.eventReceipts.insertMany([
      { _id: 'steady:post-of-last-month:draft.created', at: old },
      { _id: 'steady:post-of-last-week:draft.created', at: recent },
    ]);
    await purgeOldEvents(t.deps);
    const ids = ['post-of-last-month:draft.created', 'post-of-last-week:draft.created'];
    const kept = await t.deps.db.outbox.find({ _id: { $in: ids } }).toArray();
    expect(kept.map((doc) => doc._id)).toEqual(['post-of-last-week:draft.created']);
    const receipts = await t.deps.db.eventReceipts.find({ _id: { $in: ids.map((id) => `steady:${id}`) } }).toArray();
    expect(receipts.map((doc) => doc._id)).toEqual(['steady:post-of-last-week:draft.created']);
  });

  it('keeps a delivery whose event is not in the outbox yet for a retry, rather than dropping it', async () => {
    const consumers: EventConsumer[] = [{ name: 'steady', handle: () => Promise.resolve() }];
    await expect(deliverEvent(t.deps, consumers, 'post-not-relayed-yet:post.published')).rejects.toThrow(
      'not in the outbox yet',
    );
  });

  it('relays, through the sweep, an event whose process died between its write and the relay', async () => {
    const event = eventFor('post-of-a-dead-process');
    await writeWithoutRelay(event);
    expect(await t.deps.db.outbox.findOne({ _id: event.id })).toBeNull();
    await sweepEvents(t.deps);
    await sweepEvents(t.deps);
    expect(await t.deps.db.outbox.find({ _id: event.id }).toArray()).toEqual([
      expect.objectContaining({ subjectId: 'post-of-a-dead-process', dispatched: true }),
    ]);
  });

  it('dispatches an outbox event whose relay died before enqueueing its delivery', async () => {
    const event = eventFor('post-never-dispatched');
    const { id, ...fields } = event;
    await t.deps.db.outbox.insertOne({
      _id: id,
      ...fields,
      relayedAt: new Date(Date.now() - 30_000),
      dispatched: false,
    });
    await sweepEvents(t.deps);
    expect((await t.deps.db.outbox.findOne({ _id: id }))?.dispatched).toBe(true);
  });

  it('retries only the consumer that failed, and never hands a handled event to a consumer again', async () => {
    const event = eventFor('post-with-a-flaky-consumer');
    await relayEvents(t.deps, [event]);
    const calls = { steady: 0, flaky: 0 };
    const consumers: EventConsumer[] = [
      { name: 'steady', handle: () => Promise.resolve(void (calls.steady += 1)) },
      {
        name: 'flaky',
        handle: () => {
          calls.flaky += 1;
          return calls.flaky === 1 ? Promise.reject(new Error('chat is down')) : Promise.resolve();
        },
      },
    ];
    await expect(deliverEvent(t.deps, consumers, event.id)).rejects.toThrow('chat is down');
    expect(calls).toEqual({ steady: 1, flaky: 1 });
    await deliverEvent(t.deps, consumers, event.id);
    await deliverEvent(t.deps, consumers, event.id);
    expect(calls).toEqual({ steady: 1, flaky: 2 });
    expect(
      await t.deps.db.eventReceipts.countDocuments({ _id: { $in: [`steady:${event.id}`, `flaky:${event.id}`] } }),
    ).toBe(2);
  });
});
