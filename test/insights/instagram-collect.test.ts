import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_YET_AT_MOST_MS } from '../../src/core/insights/collect.js';
import { planCollection, requestCollection } from '../../src/core/insights/collect-job.js';
import { FIRST_SNAPSHOT_AFTER_MS, slotDueAt } from '../../src/core/insights/schedule.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { MediaDoc } from '../../src/core/media/documents.js';
import { connectedInstagram, type EmulatedInstagramAccount } from '../support/instagram.js';
import { makeJpeg } from '../support/media.js';
import { call } from '../support/posts.js';
import { buildMp4 } from '../support/video.js';
import { settled, storeMedia, waitFor as waitForFast } from '../publishing/support.js';
import {
  injectFault,
  publishedMedia,
  queueInstagramPost,
  startInstagramWorld,
  type InstagramWorld,
} from '../publishing/instagram-world.js';
import { ageStoredPosts } from './collect-support.js';

// Instagram's numbers through the collection on a running worker: media insights per released media (feed image,
// carousel album, Reel), the account's followers, the 48 h delay answered as `data: []`, and the errors.

const HOUR_MS = 3_600_000;
const LONG = { timeout: 900_000 };
const waitFor = <T>(what: string, check: () => Promise<T | undefined>) => waitForFast(what, check, 400_000);

let w: InstagramWorld;
beforeAll(async () => {
  w = await startInstagramWorld();
}, 60_000);
afterAll(async () => {
  await w.close();
});

/** A connected business account with followers, and its platform. */
function connectAccount(): Promise<{ platform: PlatformDoc; account: EmulatedInstagramAccount }> {
  return connectedInstagram(w.t, w.ig, w.tenant, {
    username: `brand.${randomUUID().slice(0, 8)}`,
    followersCount: 321,
    followsCount: 12,
  });
}

/** Publishes `media` as one post of `platform` through the worker; answers the post and Instagram's media id. */
async function published(platform: PlatformDoc, media: MediaDoc[], settings: Record<string, unknown> = {}) {
  const post = await queueInstagramPost(w, platform, media, { settings });
  const done = await settled(w, post._id);
  expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
  // The published event opens the post's insight record (and queues the account's run).
  await waitFor(
    'the insight record',
    async () => (await w.t.deps.db.postInsights.findOne({ _id: post._id })) ?? undefined,
  );
  return { postId: post._id, mediaId: done.releaseId! };
}

/** Sets a media's insight numbers at the emulator, or makes them unavailable as Instagram answers then. */
async function setInsights(
  mediaId: string,
  values: Record<string, number>,
  unavailable: 'empty' | 'not_enough_viewers' | null = null,
): Promise<void> {
  const answer = await w.ig.control('PUT', `/__control/media/${mediaId}/insights`, { values, unavailable });
  if (!answer.ok) throw new Error(`insights refused: ${answer.status} ${await answer.text()}`);
}

/** Waits until no run of the account is queued or running (the worker's runs are settled). */
function runSettled(platformId: string) {
  return waitFor('the run to settle', async () =>
    (await w.t.deps.db.insightCollectors.findOne({ _id: platformId }))?.queuedAt === null ? true : undefined,
  );
}

/**
 * One run of the account on the worker (the job's own run, so never beside the planner's): queued unless the
 * planner queued it already, then waited for.
 */
async function collectNow(platformId: string): Promise<void> {
  await requestCollection(w.t.deps, platformId);
  await runSettled(platformId);
}

function snapshotsOf(postId: string) {
  return w.t.deps.db.postSnapshots.find({ postId }).sort({ slot: 1 }).toArray();
}

async function insightsCalls(): Promise<number> {
  const answer = await w.ig.control('GET', '/__control/requests');
  const { requests } = (await answer.json()) as { requests: Record<string, number> };
  return Object.entries(requests)
    .filter(([key]) => key.includes('insights'))
    .reduce((sum, [, count]) => sum + count, 0);
}

describe('Instagram insights collection', () => {
  it("takes a published image's first snapshot and a later slot, and the account's followers", LONG, async () => {
    const { platform, account } = await connectAccount();
    const { postId, mediaId } = await published(platform, [await storeMedia(w, await makeJpeg(1080, 1080))]);
    expect(publishedMedia(w, account)[0]).toMatchObject({ id: mediaId, productType: 'FEED' });
    await setInsights(mediaId, { views: 120, reach: 80, likes: 9, comments: 2, shares: 1, saved: 3 });
    await runSettled(platform._id);

    // The first slot falls due: the planner queues the account's run on the worker, which reads the media.
    await ageStoredPosts(w.t.deps, [postId], FIRST_SNAPSHOT_AFTER_MS);
    await planCollection(w.t.deps);
    const [first] = await waitFor('the first snapshot', async () => {
      const found = await snapshotsOf(postId);
      return found.length > 0 ? found : undefined;
    });
    expect(first).toMatchObject({ slot: 0, views: 120, likes: 9, comments: 2, shares: 1 });
    const totals = await waitFor(
      'the account totals',
      async () => (await w.t.deps.db.accountSnapshots.findOne({ platformId: platform._id })) ?? undefined,
    );
    // Instagram has no account-wide likes: null, not zero. Its media count is the one published post.
    expect(totals).toMatchObject({ followers: 321, following: 12, likes: null, videos: 1 });
    await runSettled(platform._id);

    // An hour on, slot 1 holds the numbers Instagram answers then.
    await setInsights(mediaId, { views: 450, likes: 30, comments: 5, shares: 4 });
    await ageStoredPosts(w.t.deps, [postId], HOUR_MS);
    await planCollection(w.t.deps);
    const series = await waitFor('slot 1', async () => {
      const found = await snapshotsOf(postId);
      return found.length === 2 ? found : undefined;
    });
    expect(series[1]).toMatchObject({ slot: 1, views: 450, likes: 30, comments: 5, shares: 4 });

    const metrics = await call(w.server, w.tenant.apiKey, 'GET', `/posts/${postId}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatchObject({
      postId,
      platformId: platform._id,
      releaseId: mediaId,
      status: 'collecting',
      metrics: { views: 450, likes: 30, comments: 5, shares: 4 },
    });
    expect((metrics.body.series as { views: number }[]).map((point) => point.views)).toEqual([120, 450]);
    const accountMetrics = await call(w.server, w.tenant.apiKey, 'GET', `/analytics/accounts/${platform._id}`);
    expect(accountMetrics.status).toBe(200);
    expect(accountMetrics.body.latest).toMatchObject({ followers: 321, following: 12, likes: null, videos: 1 });
  });

  it(
    'reads a carousel album and a Reel with the metrics their product types support, one call a media',
    LONG,
    async () => {
      const { platform, account } = await connectAccount();
      const carousel = await published(platform, [
        await storeMedia(w, await makeJpeg(1080, 1350)),
        await storeMedia(w, await makeJpeg(1080, 1080)),
      ]);
      const reel = await published(platform, [await storeMedia(w, buildMp4({ durationSec: 8 }))], {
        share_to_feed: true,
      });
      const types = publishedMedia(w, account).map((m) => [m.id, m.mediaType, m.productType]);
      expect(types).toEqual([
        [carousel.mediaId, 'CAROUSEL_ALBUM', 'FEED'],
        [reel.mediaId, 'VIDEO', 'REELS'],
      ]);
      await setInsights(carousel.mediaId, { views: 70, likes: 7, comments: 1, shares: 0 });
      await setInsights(reel.mediaId, { views: 900, likes: 40, comments: 6, shares: 12 });
      await runSettled(platform._id);

      await ageStoredPosts(w.t.deps, [carousel.postId, reel.postId], FIRST_SNAPSHOT_AFTER_MS);
      const before = await insightsCalls();
      await collectNow(platform._id);
      expect((await insightsCalls()) - before).toBe(2);
      expect(await snapshotsOf(carousel.postId)).toMatchObject([{ views: 70, likes: 7, comments: 1, shares: 0 }]);
      expect(await snapshotsOf(reel.postId)).toMatchObject([{ views: 900, likes: 40, comments: 6, shares: 12 }]);
    },
  );

  it('waits out numbers Instagram has not made yet (data: []) without zeros or ending the post', LONG, async () => {
    const { platform } = await connectAccount();
    const { postId, mediaId } = await published(platform, [await storeMedia(w, await makeJpeg(1080, 1080))]);
    await setInsights(mediaId, {}, 'empty');
    await runSettled(platform._id);

    await ageStoredPosts(w.t.deps, [postId], FIRST_SNAPSHOT_AFTER_MS);
    const before = await insightsCalls();
    await collectNow(platform._id);
    expect((await insightsCalls()) - before).toBe(1);
    const waiting = (await w.t.deps.db.postInsights.findOne({ _id: postId }))!;
    // Not zero, not absent: the slot stays open and the post is looked at again when the next slot falls due.
    expect(waiting).toMatchObject({ status: 'collecting', nextSlot: 0, latest: null, snapshotCount: 0 });
    expect(waiting.nextDueAt).toEqual(slotDueAt(waiting.publishedAt, 1));
    expect(await w.t.deps.db.insightMisses.findOne({ _id: postId })).toBeNull();
    const early = await call(w.server, w.tenant.apiKey, 'GET', `/posts/${postId}/metrics`);
    expect(early.body).toMatchObject({ status: 'collecting', metrics: null, series: [] });

    // Too few viewers yet reads the same way.
    await setInsights(mediaId, {}, 'not_enough_viewers');
    await ageStoredPosts(w.t.deps, [postId], HOUR_MS);
    await collectNow(platform._id);
    expect(await snapshotsOf(postId)).toEqual([]);
    expect(await w.t.deps.db.insightMisses.findOne({ _id: postId })).toBeNull();
    const stillWaiting = (await w.t.deps.db.postInsights.findOne({ _id: postId }))!;
    expect(stillWaiting).toMatchObject({
      nextSlot: 0,
      latest: null,
      nextDueAt: slotDueAt(stillWaiting.publishedAt, 2),
    });

    // The numbers arrive: the slot current then is filled.
    await setInsights(mediaId, { views: 55, likes: 5, comments: 0, shares: 2 }, null);
    await ageStoredPosts(w.t.deps, [postId], HOUR_MS);
    await collectNow(platform._id);
    expect(await snapshotsOf(postId)).toMatchObject([{ slot: 2, views: 55, likes: 5, comments: 0, shares: 2 }]);
  });

  it('treats numbers still missing past the 48 h delay as a post left out', LONG, async () => {
    const { platform } = await connectAccount();
    const { postId, mediaId } = await published(platform, [await storeMedia(w, await makeJpeg(1080, 1080))]);
    await setInsights(mediaId, {}, 'empty');
    await runSettled(platform._id);
    await ageStoredPosts(w.t.deps, [postId], NOT_YET_AT_MOST_MS + HOUR_MS);
    await collectNow(platform._id);
    expect(await snapshotsOf(postId)).toEqual([]);
    expect(await w.t.deps.db.insightMisses.findOne({ _id: postId })).toMatchObject({ misses: 1 });
  });

  it('backs the account off when Instagram throttles, and asks for a reconnect on code 190', LONG, async () => {
    const { platform, account } = await connectAccount();
    const { postId, mediaId } = await published(platform, [await storeMedia(w, await makeJpeg(1080, 1080))]);
    await setInsights(mediaId, { views: 10, likes: 1, comments: 0, shares: 0 });
    await runSettled(platform._id);
    await ageStoredPosts(w.t.deps, [postId], FIRST_SNAPSHOT_AFTER_MS);

    await injectFault(w, account, { endpoint: 'insights', code: 4, message: '(#4) Application request limit reached' });
    await collectNow(platform._id);
    const state = (await w.t.deps.db.insightCollectors.findOne({ _id: platform._id }))!;
    expect(state.failures).toBe(1);
    expect(state.backoffUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(await snapshotsOf(postId)).toEqual([]);

    // The backoff waited out, a dead token: the account needs a new login, and no backoff follows.
    await w.t.deps.db.insightCollectors.updateOne({ _id: platform._id }, { $set: { backoffUntil: null } });
    await injectFault(w, account, { endpoint: 'insights', code: 190, message: 'Error validating access token' });
    await collectNow(platform._id);
    expect(await snapshotsOf(postId)).toEqual([]);
    expect((await w.t.deps.db.insightCollectors.findOne({ _id: platform._id }))!.failures).toBe(0);
    expect((await w.t.deps.db.platforms.findOne({ _id: platform._id }))!.refreshNeeded).toBe(true);
  });

  it('marks the insights scope not granted when Instagram refuses the permission', LONG, async () => {
    const { platform, account } = await connectAccount();
    const { postId } = await published(platform, [await storeMedia(w, await makeJpeg(1080, 1080))]);
    await runSettled(platform._id);
    await ageStoredPosts(w.t.deps, [postId], FIRST_SNAPSHOT_AFTER_MS);

    await injectFault(w, account, {
      endpoint: 'insights',
      code: 10,
      message: '(#10) Application does not have permission for this action',
    });
    await collectNow(platform._id);
    expect(await snapshotsOf(postId)).toEqual([]);
    const after = (await w.t.deps.db.platforms.findOne({ _id: platform._id }))!;
    expect(after.metadata.scopes).not.toContain('instagram_business_manage_insights');
    const listed = await call(w.server, w.tenant.apiKey, 'GET', '/platforms');
    const row = (listed.body.platforms as { id: string; analytics: unknown }[]).find((p) => p.id === platform._id);
    expect(row?.analytics).toMatchObject({ granted: false, missingScopes: ['instagram_business_manage_insights'] });
  });
});
