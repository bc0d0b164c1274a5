import { describe, expect, it } from 'vitest';
import { recordAccountSnapshot } from '../../src/core/insights/account-snapshot.js';
import { listDuePosts, walkAccount } from '../../src/core/insights/due-posts.js';
import { insightsConsumer } from '../../src/core/insights/published-consumer.js';
import { markUnavailable, recordPostSnapshot } from '../../src/core/insights/record-snapshot.js';
import { FIRST_SNAPSHOT_AFTER_MS, LAST_SLOT, slotDueAt } from '../../src/core/insights/schedule.js';
import { domainEvent, relayEvents } from '../../src/core/events/relay.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { deletePostGroup } from '../../src/core/posts/delete-post.js';
import { recordLateRelease } from '../../src/core/publishing/post-outcome.js';
import { systemScope } from '../platforms/support.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { buildPost, DIRECT } from '../support/posts.js';
import { compositeCarousel, counts, publishPost } from './support.js';

// The stored numbers: records made at PUBLISHED, snapshots per schedule slot, the due query.
const { t, server } = await useTestServer();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function world() {
  const tenant = await buildTenant(t.deps);
  const platform = await buildPlatform(t.deps, tenant.workspaceId);
  return { tenant, platform };
}

describe('the insight record of a published post', () => {
  it('is made when the post becomes PUBLISHED, due a few minutes on, with the carousel hook it was composited with', async () => {
    const { tenant, platform } = await world();
    const mediaIds = await compositeCarousel(server, tenant.apiKey, 'Stop scrolling: 3 sleep myths', 'anton');
    const post = await publishPost(t.deps, tenant, platform._id, { mediaIds });
    const record = await t.deps.db.postInsights.findOne({ _id: post._id });
    expect(record).toMatchObject({
      workspaceId: tenant.workspaceId,
      platformId: platform._id,
      releaseId: post.releaseId,
      status: 'collecting',
      nextSlot: 0,
      latest: null,
      rankingViews: null,
      hook: { text: 'Stop scrolling: 3 sleep myths', textStyleId: 'anton', language: 'en' },
    });
    // A second-old post has no views yet: its first snapshot is a few minutes on.
    expect(record!.nextDueAt).toEqual(new Date(record!.publishedAt.getTime() + FIRST_SNAPSHOT_AFTER_MS));
    expect(FIRST_SNAPSHOT_AFTER_MS).toBeGreaterThanOrEqual(2 * 60_000);
    // A video, or images not composited here, have no hook.
    const plain = await publishPost(t.deps, tenant, platform._id);
    expect((await t.deps.db.postInsights.findOne({ _id: plain._id }))!.hook).toBeNull();
    // The hook is the slide viewers see first, in the post's order.
    const reordered = await publishPost(t.deps, tenant, platform._id, { mediaIds: [...mediaIds].reverse() });
    expect((await t.deps.db.postInsights.findOne({ _id: reordered._id }))!.hook?.text).toBe('The second slide');
  });

  it('is made by the published event, once however often the event is delivered', async () => {
    const { tenant, platform } = await world();
    const post = await buildPost(t.deps, tenant.workspaceId, {
      platformId: platform._id,
      state: 'PUBLISHED',
      releaseId: 'v_from_event',
      settings: { ...DIRECT },
    });
    const event = domainEvent(
      'post.published',
      { workspaceId: tenant.workspaceId, subjectId: post._id, actor: { type: 'system' } },
      new Date(),
    );
    expect(await t.deps.db.postInsights.findOne({ _id: post._id })).toBeNull();
    await insightsConsumer.handle(t.deps, event);
    await insightsConsumer.handle(t.deps, event);
    expect(await t.deps.db.postInsights.countDocuments({ _id: post._id })).toBe(1);
    expect(await t.deps.db.postInsights.findOne({ _id: post._id })).toMatchObject({
      releaseId: 'v_from_event',
      publishedAt: event.at,
      status: 'collecting',
    });
  });

  it("is made by a running worker's event delivery (the consumer is registered)", async () => {
    await t.startWorker();
    const { tenant, platform } = await world();
    const event = (subjectId: string) =>
      domainEvent(
        'post.published',
        { workspaceId: tenant.workspaceId, subjectId, actor: { type: 'system' } },
        new Date(),
      );
    const post = await buildPost(t.deps, tenant.workspaceId, {
      platformId: platform._id,
      state: 'PUBLISHED',
      settings: { ...DIRECT },
    });
    await relayEvents(t.deps, [event(post._id)]);
    for (let i = 0; i < 600 && !(await t.deps.db.postInsights.findOne({ _id: post._id })); i++) await sleep(100);
    expect(await t.deps.db.postInsights.findOne({ _id: post._id })).toMatchObject({ status: 'collecting' });
  }, 90_000);

  it('is unavailable from the start, with the reason, when TikTok will not count the post (not public)', async () => {
    const { tenant, platform } = await world();
    for (const [privacyLevel, words] of [
      ['SELF_ONLY', 'Only me (SELF_ONLY)'],
      ['MUTUAL_FOLLOW_FRIENDS', 'Friends (MUTUAL_FOLLOW_FRIENDS)'],
      ['FOLLOWER_OF_CREATOR', 'Followers (FOLLOWER_OF_CREATOR)'],
    ] as const) {
      const post = await publishPost(t.deps, tenant, platform._id, { releaseId: null, privacyLevel });
      const record = await t.deps.db.postInsights.findOne({ _id: post._id });
      expect(record).toMatchObject({ status: 'unavailable', nextSlot: null, nextDueAt: null, latest: null });
      expect(record!.unavailableReason).toContain(
        `TikTok counts only public posts, and this one was published as ${words}`,
      );
      // Nothing is collected: the account's collector never finds it.
      expect(await t.deps.db.insightMembers.countDocuments({ postId: post._id })).toBe(0);
    }
    expect(await listDuePosts(t.deps, platform._id, new Date(Date.now() + 40 * DAY), 10)).toEqual([]);
  });

  it('ends a record opened as collecting for a post that is not public at the next walk (records from before)', async () => {
    const { tenant, platform } = await world();
    const post = await publishPost(t.deps, tenant, platform._id, { releaseId: null });
    // As an older version left it: a SELF_ONLY post collecting, with no id to ask TikTok about.
    await t.deps.db.posts.updateOne(
      { _id: post._id },
      { $set: { settings: { content_posting_method: 'DIRECT_POST', privacy_level: 'SELF_ONLY' } } },
    );
    await walkAccount(t.deps, platform._id, new Date());
    const record = await t.deps.db.postInsights.findOne({ _id: post._id });
    expect(record).toMatchObject({ status: 'unavailable', nextDueAt: null });
    expect(record!.unavailableReason).toContain('Only me (SELF_ONLY)');
  });

  it("takes TikTok's post id when it is released after moderation", async () => {
    const { tenant, platform } = await world();
    const post = await publishPost(t.deps, tenant, platform._id, { releaseId: null });
    expect(await listDuePosts(t.deps, platform._id, new Date(), 10)).toEqual([]);
    await recordLateRelease(t.deps, post._id, { releaseId: 'v_late', releaseUrl: null });
    const firstDue = new Date(Date.now() + FIRST_SNAPSHOT_AFTER_MS);
    expect(await listDuePosts(t.deps, platform._id, firstDue, 10)).toEqual([
      expect.objectContaining({ postId: post._id, releaseId: 'v_late', nextSlot: 0 }),
    ]);
  });
});

describe('recording snapshots', () => {
  it('stores one document per slot however often a slot is written, and moves the schedule on', async () => {
    const { tenant, platform } = await world();
    const post = await publishPost(t.deps, tenant, platform._id);
    const publishedAt = (await t.deps.db.postInsights.findOne({ _id: post._id }))!.publishedAt;
    const at = (ms: number) => new Date(publishedAt.getTime() + ms);

    expect(await recordPostSnapshot(t.deps, post._id, counts(10, 1), at(60_000))).toEqual({
      stored: true,
      slot: 0,
      status: 'collecting',
    });
    // The same slot again (a retry, a resumed worker): nothing more is stored.
    expect((await recordPostSnapshot(t.deps, post._id, counts(12, 1), at(120_000))).stored).toBe(false);
    expect(await t.deps.db.postSnapshots.countDocuments({ postId: post._id })).toBe(1);
    const record = await t.deps.db.postInsights.findOne({ _id: post._id });
    expect(record).toMatchObject({ nextSlot: 1, nextDueAt: slotDueAt(publishedAt, 1), snapshotCount: 1 });
    expect(record!.latest).toEqual({ views: 10, likes: 1, comments: 0, shares: 0, takenAt: at(60_000) });

    // A late collector fills the current slot and skips what it missed.
    expect(await recordPostSnapshot(t.deps, post._id, counts(300, 30, 3, 2), at(3.5 * HOUR))).toMatchObject({
      stored: true,
      slot: 3,
    });
    expect((await t.deps.db.postInsights.findOne({ _id: post._id }))!.nextSlot).toBe(4);
    const ids = (await t.deps.db.postSnapshots.find({ postId: post._id }).toArray()).map((doc) => doc._id).sort();
    expect(ids).toEqual([`${post._id}#0`, `${post._id}#3`]);
  });

  it('keeps the views at 48 hours, read between the snapshots either side of it', async () => {
    const { tenant, platform } = await world();
    const post = await publishPost(t.deps, tenant, platform._id);
    const publishedAt = (await t.deps.db.postInsights.findOne({ _id: post._id }))!.publishedAt;
    const at = (ms: number) => new Date(publishedAt.getTime() + ms);
    await recordPostSnapshot(t.deps, post._id, counts(1000), at(46 * HOUR));
    expect((await t.deps.db.postInsights.findOne({ _id: post._id }))!.rankingViews).toBeNull();
    await recordPostSnapshot(t.deps, post._id, counts(2000), at(50 * HOUR));
    expect((await t.deps.db.postInsights.findOne({ _id: post._id }))!.rankingViews).toBe(1500);
    await recordPostSnapshot(t.deps, post._id, counts(9000), at(60 * HOUR));
    expect((await t.deps.db.postInsights.findOne({ _id: post._id }))!.rankingViews).toBe(1500);
  });

  it('makes the post final with the day-30 snapshot', async () => {
    const { tenant, platform } = await world();
    const post = await publishPost(t.deps, tenant, platform._id);
    const publishedAt = (await t.deps.db.postInsights.findOne({ _id: post._id }))!.publishedAt;
    const outcome = await recordPostSnapshot(t.deps, post._id, counts(5), new Date(publishedAt.getTime() + 30 * DAY));
    expect(outcome).toEqual({ stored: true, slot: LAST_SLOT, status: 'final' });
    expect(await t.deps.db.postInsights.findOne({ _id: post._id })).toMatchObject({
      status: 'final',
      nextSlot: null,
      nextDueAt: null,
      rankingViews: 5,
    });
    expect(
      (await recordPostSnapshot(t.deps, post._id, counts(6), new Date(publishedAt.getTime() + 31 * DAY))).stored,
    ).toBe(false);
  });

  it('marks a post TikTok returns nothing for unavailable: collection stops, its counts stay', async () => {
    const { tenant, platform } = await world();
    const post = await publishPost(t.deps, tenant, platform._id);
    await recordPostSnapshot(t.deps, post._id, counts(40, 4), new Date());
    expect(await markUnavailable(t.deps, post._id, 'TikTok no longer returns this post')).toBe(true);
    expect(await markUnavailable(t.deps, post._id, 'again')).toBe(false);
    expect(await t.deps.db.postInsights.findOne({ _id: post._id })).toMatchObject({
      status: 'unavailable',
      unavailableReason: 'TikTok no longer returns this post',
      nextDueAt: null,
      latest: expect.objectContaining({ views: 40, likes: 4 }),
    });
    expect((await recordPostSnapshot(t.deps, post._id, counts(50), new Date(Date.now() + 2 * HOUR))).stored).toBe(
      false,
    );
    expect(await listDuePosts(t.deps, platform._id, new Date(Date.now() + DAY), 10)).toEqual([]);
  });

  it("lists one account's due posts, most overdue first, at most the limit", async () => {
    const { tenant, platform } = await world();
    const other = await buildPlatform(t.deps, tenant.workspaceId);
    const first = await publishPost(t.deps, tenant, platform._id);
    const second = await publishPost(t.deps, tenant, platform._id);
    await publishPost(t.deps, tenant, other._id);
    const now = new Date(Date.now() + FIRST_SNAPSHOT_AFTER_MS + 1000);
    expect((await listDuePosts(t.deps, platform._id, now, 10)).map((due) => due.postId)).toEqual([
      first._id,
      second._id,
    ]);
    expect(await listDuePosts(t.deps, platform._id, now, 1)).toHaveLength(1);
    await recordPostSnapshot(t.deps, first._id, counts(1), now);
    expect((await listDuePosts(t.deps, platform._id, now, 10)).map((due) => due.postId)).toEqual([second._id]);
    const later = new Date(now.getTime() + HOUR);
    expect((await listDuePosts(t.deps, platform._id, later, 10)).map((due) => due.postId)).toEqual([
      second._id,
      first._id,
    ]);
  });

  it('deletes a post’s record and snapshots with the post', async () => {
    const { tenant, platform } = await world();
    const post = await publishPost(t.deps, tenant, platform._id);
    const kept = await publishPost(t.deps, tenant, platform._id);
    await recordPostSnapshot(t.deps, post._id, counts(3), new Date());
    await recordPostSnapshot(t.deps, kept._id, counts(4), new Date());
    await deletePostGroup(t.deps, systemScope(tenant), post._id);
    expect(await t.deps.db.postInsights.findOne({ _id: post._id })).toBeNull();
    expect(await t.deps.db.postSnapshots.countDocuments({ postId: post._id })).toBe(0);
    expect(await t.deps.db.postSnapshots.countDocuments({ postId: kept._id })).toBe(1);
  });

  it("records an account's totals at most once an hour", async () => {
    const { platform } = await world();
    const at = new Date('2026-03-01T10:05:00Z');
    const totals = { followers: 10, following: 2, likes: 30, videos: 4 };
    expect(await recordAccountSnapshot(t.deps, platform._id, totals, at)).toBe(true);
    expect(
      await recordAccountSnapshot(t.deps, platform._id, { ...totals, followers: 11 }, new Date('2026-03-01T10:50:00Z')),
    ).toBe(false);
    expect(await recordAccountSnapshot(t.deps, platform._id, totals, new Date('2026-03-01T11:00:00Z'))).toBe(true);
    const docs = await t.deps.db.accountSnapshots.find({ platformId: platform._id }).toArray();
    expect(docs.map((doc) => doc.followers)).toEqual([10, 10]);
  });
});
