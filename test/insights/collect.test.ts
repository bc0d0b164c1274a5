import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectAccount, MISS_RECHECK_MS } from '../../src/core/insights/collect.js';
import { planCollection, requestCollection } from '../../src/core/insights/collect-job.js';
import { FIRST_SNAPSHOT_AFTER_MS, FIRST_SNAPSHOT_WITHIN_MS } from '../../src/core/insights/schedule.js';
import { unavailableReason } from '../../src/core/insights/unavailable-reasons.js';
import type { MediaDoc } from '../../src/core/media/documents.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { platformAnalyticsAccess } from '../../src/core/providers/tiktok/connect/analytics-access.js';
import { makeJpeg } from '../support/media.js';
import {
  connectCreator,
  queuePost,
  settled,
  startWorld,
  storeMedia,
  waitFor as waitForFast,
  type PublishingWorld,
} from '../publishing/support.js';
import { publishPost } from './support.js';
import { agePosts, emulatorControl, postsOnTikTok, videoQueryCalls } from './collect-support.js';

// The collection job on a running worker against the TikTok emulator: the first snapshot after PUBLISHED, the
// schedule as the post clock moves, 20 ids a call, posts TikTok stops returning, 429s and missing scopes.

const HOUR_MS = 3_600_000;
/** A run may wait for the planner (every minute, through housekeeping) on a busy machine. */
const LONG = { timeout: 900_000 };
const waitFor = <T>(what: string, check: () => Promise<T | undefined>) => waitForFast(what, check, 400_000);

let w: PublishingWorld;
let image: MediaDoc;
beforeAll(async () => {
  w = await startWorld();
  image = await storeMedia(w, await makeJpeg(320, 240));
}, 60_000);
afterAll(async () => {
  await w.close();
});

/** Published posts of `platform` whose TikTok posts exist: records made by markPublished, as the engine does. */
async function publishedOnTikTok(platform: PlatformDoc, count: number): Promise<string[]> {
  const releaseIds: string[] = [];
  // One inbox upload is posted at most 35 times.
  for (let left = count; left > 0; left -= 35) {
    releaseIds.push(...(await postsOnTikTok(w.f, w.t.deps, platform, image, Math.min(left, 35))));
  }
  const posts = [];
  for (const releaseId of releaseIds) posts.push(await publishPost(w.t.deps, w.tenant, platform._id, { releaseId }));
  return posts.map((post) => post._id);
}

/** Moves time on by `ms` for these posts, as if the worker had waited that long (collect-support.ts). */
function age(postIds: string[], ms: number): Promise<void> {
  return agePosts(w.f, w.t.deps, postIds, ms);
}

/** An account with one published post, its first snapshot taken and its run settled, then aged an hour. */
async function collectedAnHourAgo() {
  const { openId, platform } = await connectCreator(w);
  await collectAccount(w.t.deps, platform._id);
  const [postId] = await publishedOnTikTok(platform, 1);
  await waitFor('the first snapshot', async () => ((await snapshotCount([postId!])) === 1 ? true : undefined));
  await waitFor('the run to settle', async () =>
    (await w.t.deps.db.insightCollectors.findOne({ _id: platform._id }))?.queuedAt === null ? true : undefined,
  );
  await age([postId!], HOUR_MS);
  return { openId, platform, postId: postId! };
}

/** How many of these posts' `post.published` events the collection's consumer has handled. */
async function collectionReceipts(postIds: string[]): Promise<number> {
  const posts = await w.t.deps.db.posts.find({ _id: { $in: postIds } }, { projection: { events: 1 } }).toArray();
  const ids = posts.flatMap((post) => (post.events ?? []).filter((e) => e.type === 'post.published').map((e) => e.id));
  return w.t.deps.db.eventReceipts.countDocuments({ _id: { $in: ids.map((id) => `insights:${id}`) } });
}

function snapshotsOf(postId: string) {
  return w.t.deps.db.postSnapshots.find({ postId }).sort({ slot: 1 }).toArray();
}

/** The post's insight record once it has counted `count` snapshots. */
function recordAfter(postId: string, count: number) {
  return waitFor(`the record to count ${count} snapshots`, async () => {
    const record = await w.t.deps.db.postInsights.findOne({ _id: postId });
    return record && record.snapshotCount >= count ? record : undefined;
  });
}

async function snapshotCount(postIds: string[]): Promise<number> {
  return w.t.deps.db.postSnapshots.countDocuments({ postId: { $in: postIds } });
}

describe('collection', () => {
  it(
    'takes the first snapshot a few minutes after PUBLISHED, not at once, then each slot as the post clock moves',
    LONG,
    async () => {
      const { openId, platform } = await connectCreator(w, { followerCount: 1234, likesCount: 99 });
      const post = await queuePost(w, platform, [image]);
      const published = await settled(w, post._id);
      expect(published.state).toBe('PUBLISHED');

      // Nothing asks for it: the published event queues the account's run on the worker, which notes when the
      // post's first snapshot falls due, a few minutes on (a post a second old has no views), and takes none yet.
      const noted = await waitFor('the run to note the first due time', async () => {
        const state = await w.t.deps.db.insightCollectors.findOne({ _id: platform._id });
        return state?.queuedAt === null && state.dueAt ? state : undefined;
      });
      const opened = (await w.t.deps.db.postInsights.findOne({ _id: post._id }))!;
      expect(opened.nextDueAt).toEqual(new Date(opened.publishedAt.getTime() + FIRST_SNAPSHOT_AFTER_MS));
      expect(noted.dueAt).toEqual(opened.nextDueAt);
      expect(await snapshotsOf(post._id)).toEqual([]);

      // Those minutes go by (post clock and schedule): the planner queues the run, which takes slot 0.
      await age([post._id], FIRST_SNAPSHOT_AFTER_MS);
      await planCollection(w.t.deps);
      const [first] = await waitFor('the first snapshot', async () => {
        const found = await snapshotsOf(post._id);
        return found.length > 0 ? found : undefined;
      });
      // The snapshot is stored before the post's record moves on to the next slot: wait for that second write.
      const record = await recordAfter(post._id, 1);
      expect(first!.slot).toBe(0);
      expect(first!.takenAt.getTime() - record.publishedAt.getTime()).toBeGreaterThanOrEqual(FIRST_SNAPSHOT_AFTER_MS);
      expect(first!.takenAt.getTime() - record.publishedAt.getTime()).toBeLessThan(FIRST_SNAPSHOT_WITHIN_MS);
      expect(record).toMatchObject({ status: 'collecting', nextSlot: 1, snapshotCount: 1 });
      const totals = await waitFor('the account totals', async () => {
        const found = await w.t.deps.db.accountSnapshots.findOne({ platformId: platform._id });
        return found ?? undefined;
      });
      expect(totals).toMatchObject({ followers: 1234, likes: 99 });
      expect(openId).toBeTruthy();
      await waitFor('the run to settle', async () =>
        (await w.t.deps.db.insightCollectors.findOne({ _id: platform._id }))?.queuedAt === null ? true : undefined,
      );

      // An hour later (post clock and schedule), the planner queues the run and slot 1 holds the counts at 60 min.
      await age([post._id], HOUR_MS);
      await planCollection(w.t.deps);
      const series = await waitFor('slot 1', async () => {
        const found = await snapshotsOf(post._id);
        return found.length === 2 ? found : undefined;
      });
      const curve = await emulatorControl<{ counts: { viewCount: number } }>(
        w.f,
        'GET',
        `/videos/${published.releaseId}/curve?ageMinutes=60`,
      );
      expect(series.map((s) => s.slot)).toEqual([0, 1]);
      expect(series[1]!.views).toBeGreaterThanOrEqual(curve.counts.viewCount);
      expect(series[1]!.views).toBeGreaterThan(series[0]!.views);
      const after = await recordAfter(post._id, 2);
      expect(after.latest?.views).toBe(series[1]!.views);
      expect(after.nextSlot).toBe(2);
    },
  );

  it('asks TikTok about 20 posts a call: 45 due posts of one account are 3 calls', LONG, async () => {
    const { platform } = await connectCreator(w);
    // Totals first, so the run below makes only the post calls.
    await collectAccount(w.t.deps, platform._id);
    const postIds = await publishedOnTikTok(platform, 45);
    // Settled: every published event delivered (each may queue a run) and the last run done; a late delivery
    // would queue runs that take the posts below a few at a time while they are being aged.
    let seen = '';
    await waitFor('the published events to settle', async () => {
      const state = await w.t.deps.db.insightCollectors.findOne({ _id: platform._id });
      const [receipts, snapshots] = [await collectionReceipts(postIds), await snapshotCount(postIds)];
      seen = JSON.stringify({ receipts, snapshots, state });
      // A post opened while a run was queued is left to the planner (every minute, held while the machine is
      // busy): a run that walked before its member was added settles without it. Plan as the planner would.
      if (receipts === 45 && snapshots < 45 && state?.queuedAt === null) await planCollection(w.t.deps);
      return receipts === 45 && snapshots === 45 && state?.queuedAt === null ? true : undefined;
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}; last seen: ${seen}`);
    });
    // Each round after the first: every post is due at the same time.
    await age(postIds, HOUR_MS);
    const before = await videoQueryCalls(w.f);
    expect(await requestCollection(w.t.deps, platform._id)).toBe(true);
    await waitFor('slot 1 of all 45 posts', async () => ((await snapshotCount(postIds)) === 90 ? true : undefined));
    expect((await videoQueryCalls(w.f)) - before).toBe(3);
    const slots = await w.t.deps.db.postSnapshots.find({ postId: { $in: postIds } }).toArray();
    expect(new Set(slots.map((s) => s._id)).size).toBe(90);
  });

  it('ends a post TikTok stops returning as unavailable, with the reason, after two absent answers', LONG, async () => {
    const { platform } = await connectCreator(w);
    const [postId] = await publishedOnTikTok(platform, 1);
    const record = await recordAfter(postId!, 1);
    await emulatorControl(w.f, 'PATCH', `/videos/${record.releaseId}`, { privacyLevel: 'SELF_ONLY' });
    await age([postId!], HOUR_MS);

    const firstMiss = await collectAccount(w.t.deps, platform._id);
    expect(firstMiss).toMatchObject({ missed: 1, unavailable: 0, snapshots: 0 });
    const aside = (await w.t.deps.db.postInsights.findOne({ _id: postId! }))!;
    expect(aside).toMatchObject({ status: 'collecting', nextSlot: 1 });
    // Asked again at the recheck, not before.
    expect(aside.nextDueAt!.getTime()).toBeGreaterThan(Date.now() + MISS_RECHECK_MS - 60_000);
    expect(await collectAccount(w.t.deps, platform._id)).toMatchObject({ calls: 0, missed: 0 });

    // The recheck falls due (the miss and the schedule moved back by its wait): still absent, so unavailable.
    const miss = (await w.t.deps.db.insightMisses.findOne({ _id: postId! }))!;
    await w.t.deps.db.insightMisses.updateOne(
      { _id: postId! },
      { $set: { firstMissedAt: new Date(miss.firstMissedAt.getTime() - MISS_RECHECK_MS) } },
    );
    await age([postId!], MISS_RECHECK_MS);
    expect(await collectAccount(w.t.deps, platform._id)).toMatchObject({ missed: 1, unavailable: 1 });
    const ended = (await w.t.deps.db.postInsights.findOne({ _id: postId! }))!;
    expect(ended).toMatchObject({
      status: 'unavailable',
      unavailableReason: unavailableReason(true),
      nextDueAt: null,
      snapshotCount: 1,
    });
    expect(ended.latest).not.toBeNull();
    expect(await w.t.deps.db.insightMisses.findOne({ _id: postId! })).toBeNull();
  });

  it(
    'says a post TikTok never returned may be private, removed or a photo post its API does not report',
    LONG,
    async () => {
      const { platform } = await connectCreator(w);
      const [releaseId] = await postsOnTikTok(w.f, w.t.deps, platform, image, 1);
      await emulatorControl(w.f, 'PATCH', `/videos/${releaseId}`, { removed: true });
      const { _id: postId } = await publishPost(w.t.deps, w.tenant, platform._id, { releaseId: releaseId! });
      // The first absence, whether this call or the worker's run notes it.
      await collectAccount(w.t.deps, platform._id);
      const miss = await waitFor('the first absence', () =>
        w.t.deps.db.insightMisses.findOne({ _id: postId }).then((m) => m ?? undefined),
      );
      await w.t.deps.db.insightMisses.updateOne(
        { _id: postId },
        { $set: { firstMissedAt: new Date(miss.firstMissedAt.getTime() - MISS_RECHECK_MS) } },
      );
      await age([postId], MISS_RECHECK_MS);
      await collectAccount(w.t.deps, platform._id);
      const ended = await waitFor('unavailable', async () => {
        const record = await w.t.deps.db.postInsights.findOne({ _id: postId });
        return record?.status === 'unavailable' ? record : undefined;
      });
      expect(ended).toMatchObject({ unavailableReason: unavailableReason(false), snapshotCount: 0, latest: null });
      expect(ended.unavailableReason).toContain("for a photo post, TikTok's API does not report it");
    },
  );

  it('keeps a post that TikTok leaves out once and returns again, in the slot then current', LONG, async () => {
    const { platform } = await connectCreator(w);
    const [postId] = await publishedOnTikTok(platform, 1);
    const record = await recordAfter(postId!, 1);
    await emulatorControl(w.f, 'PATCH', `/videos/${record.releaseId}`, { removed: true });
    await age([postId!], HOUR_MS);
    expect(await collectAccount(w.t.deps, platform._id)).toMatchObject({ missed: 1 });
    await emulatorControl(w.f, 'PATCH', `/videos/${record.releaseId}`, { removed: false });
    await age([postId!], MISS_RECHECK_MS);
    expect(await collectAccount(w.t.deps, platform._id)).toMatchObject({ snapshots: 1, missed: 0 });
    expect((await snapshotsOf(postId!)).map((s) => s.slot)).toEqual([0, 1]);
    expect(await w.t.deps.db.insightMisses.findOne({ _id: postId! })).toBeNull();
  });

  it('backs off on TikTok 429s without losing the slot or asking in a loop', LONG, async () => {
    const { openId, platform, postId } = await collectedAnHourAgo();
    await emulatorControl(w.f, 'POST', `/accounts/${openId}/failures`, {
      endpoint: 'video_query',
      status: 429,
      code: 'rate_limit_exceeded',
      times: 50,
    });
    const before = await videoQueryCalls(w.f);
    expect(await requestCollection(w.t.deps, platform._id)).toBe(true);
    const state = await waitFor('the backoff', async () => {
      const found = await w.t.deps.db.insightCollectors.findOne({ _id: platform._id });
      return found?.backoffUntil ? found : undefined;
    });
    // One ask (the client's own retries of a 429 included), then nothing until the backoff ends.
    const asked = (await videoQueryCalls(w.f)) - before;
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(4);
    expect(state.backoffUntil!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect(await requestCollection(w.t.deps, platform._id)).toBe(false);
    expect(await planCollection(w.t.deps)).toBeGreaterThanOrEqual(0);
    expect((await videoQueryCalls(w.f)) - before).toBe(asked);
    expect((await snapshotsOf(postId)).map((s) => s.slot)).toEqual([0]);
    expect((await w.t.deps.db.postInsights.findOne({ _id: postId }))!.nextSlot).toBe(1);

    // TikTok answers again and the backoff is over: slot 1 is filled, once.
    const account = w.f.emulator.control.accounts.get(openId)!;
    account.failures.length = 0;
    await w.t.deps.db.insightCollectors.updateOne({ _id: platform._id }, { $set: { backoffUntil: new Date(0) } });
    expect(await requestCollection(w.t.deps, platform._id)).toBe(true);
    await waitFor('slot 1', async () => ((await snapshotCount([postId])) === 2 ? true : undefined));
    expect((await snapshotsOf(postId)).map((s) => s.slot)).toEqual([0, 1]);
    const settledState = await waitFor('the run to settle', async () => {
      const found = await w.t.deps.db.insightCollectors.findOne({ _id: platform._id });
      return found?.queuedAt === null ? found : undefined;
    });
    expect(settledState).toMatchObject({ failures: 0, backoffUntil: null });
  });

  it('never collects an account connected without the analytics scopes', LONG, async () => {
    const { platform } = await connectCreator(w, { deniedScopes: ['video.list', 'user.info.stats'] });
    expect(platformAnalyticsAccess(platform).granted).toBe(false);
    const before = await videoQueryCalls(w.f);
    const post = await publishPost(w.t.deps, w.tenant, platform._id, { releaseId: 'v_not_granted' });
    await planCollection(w.t.deps);
    expect(await w.t.deps.db.insightCollectors.findOne({ _id: platform._id })).toBeNull();
    expect(await collectAccount(w.t.deps, platform._id)).toMatchObject({ calls: 0, stopped: 'not_granted' });
    expect(await videoQueryCalls(w.f)).toBe(before);
    expect((await w.t.deps.db.postInsights.findOne({ _id: post._id }))!.snapshotCount).toBe(0);
  });

  it('stops collecting an account TikTok answers scope_not_authorized, until it is reconnected', LONG, async () => {
    const { openId, platform, postId } = await collectedAnHourAgo();
    await emulatorControl(w.f, 'POST', `/accounts/${openId}/failures`, {
      endpoint: 'video_query',
      status: 401,
      code: 'scope_not_authorized',
    });
    expect(await collectAccount(w.t.deps, platform._id)).toMatchObject({ stopped: 'not_granted', snapshots: 0 });
    const stored = (await w.t.deps.db.platforms.findOne({ _id: platform._id }))!;
    expect(platformAnalyticsAccess(stored)).toMatchObject({ granted: false, missingScopes: ['video.list'] });

    const before = await videoQueryCalls(w.f);
    await planCollection(w.t.deps);
    expect(await collectAccount(w.t.deps, platform._id)).toMatchObject({ calls: 0 });
    expect(await videoQueryCalls(w.f)).toBe(before);
    expect((await w.t.deps.db.postInsights.findOne({ _id: postId }))!).toMatchObject({
      status: 'collecting',
      nextSlot: 1,
    });
  });
});
