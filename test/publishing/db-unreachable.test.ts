import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/core/context.js';
import { collectionsOf } from '../../src/core/db/collections.js';
import { TikTokHttp } from '../../src/core/providers/tiktok/http.js';
import { performPublish } from '../../src/core/publishing/publish.js';
import { performSweep } from '../../src/core/publishing/sweep.js';
import { createLogger } from '../../src/logger.js';
import { startDatabaseProxy, startTikTokFront, type DatabaseProxy } from '../support/cut-proxies.js';
import { makeJpeg } from '../support/media.js';
import { expireCreatorInfo } from '../support/tiktok.js';
import {
  attemptsOf,
  connectCreator,
  latestAttempt,
  emulatorPosts,
  queuePost,
  settled,
  SLOW,
  startWorld,
  storeMedia,
  waitFor,
  type PublishingWorld,
} from './support.js';
import { withTikTokHttp } from '../support/tiktok.js';

// The database goes away at an exact step of a publish attempt (a proxy in front of it is cut the moment
// a TikTok call leaves, and restored a few seconds later): the attempt waits for the database, is not used
// up, and the post is published exactly once.

/** Longer than two server selections of the attempt's client: every write in between fails. */
const OUTAGE_MS = 5_000;

let w: PublishingWorld;
let proxy: DatabaseProxy;
let client: MongoClient;
beforeAll(async () => {
  w = await startWorld();
  proxy = await startDatabaseProxy(w.t.uri);
  client = await new MongoClient(proxy.uri, { serverSelectionTimeoutMS: 2_000 }).connect();
}, 60_000);
afterAll(async () => {
  await client.close(true);
  await proxy.stop();
  await w.close();
});

/**
 * Runs the publish job for `postId` on a connection through the proxy, cut when TikTok is called at `cutAt`
 * and restored OUTAGE_MS later; `meanwhile` runs during the outage, on the test's own connection.
 */
async function publishWithOutageAt(postId: string, cutAt: string, meanwhile?: () => Promise<void>): Promise<void> {
  let cuts = 0;
  let during: Promise<void> = Promise.resolve();
  const front = await startTikTokFront(w.f.emulator.url, (path) => {
    if (path !== cutAt || cuts++ > 0) return;
    proxy.cut();
    during = meanwhile?.() ?? Promise.resolve();
    setTimeout(() => void during.finally(() => proxy.restore()), OUTAGE_MS);
  });
  try {
    const http = new TikTokHttp({ ...w.f.config, apiBaseUrl: front.url }, createLogger({ level: 'silent' }), {
      baseDelayMs: 5,
    });
    const deps: CoreDeps = withTikTokHttp(
      { ...w.t.deps, db: collectionsOf(client.db(w.t.dbName)), logger: createLogger({ level: 'silent' }) },
      http,
    );
    await performPublish({ postId }, { deps, jobId: `test-${postId}`, attempt: 1, touch: () => Promise.resolve() });
    expect(cuts).toBe(1);
    await during;
  } finally {
    await front.stop();
  }
}

describe('a publish attempt while the database is unreachable', SLOW, () => {
  it('stores the publish_id once the database is back when it went away while TikTok answered the init', async () => {
    const { openId, platform } = await connectCreator(w);
    const post = await queuePost(w, platform, [await storeMedia(w, await makeJpeg(64, 48))], { enqueue: false });

    await publishWithOutageAt(post._id, '/v2/post/publish/content/init/');

    const attempts = await attemptsOf(w, post._id);
    expect(attempts.map((a) => ({ n: a.n, phase: a.phase, hasId: a.publishId !== null }))).toEqual([
      { n: 1, phase: 'init_answered', hasId: true },
    ]);
    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(1);
    expect(tiktok.posts).toHaveLength(1);
  });

  it('waits before the init instead of using up the attempt when it went away while reading creator info', async () => {
    const { openId, platform } = await connectCreator(w);
    const post = await queuePost(w, platform, [await storeMedia(w, await makeJpeg(64, 48))], { enqueue: false });
    await expireCreatorInfo(w.t.deps);

    await publishWithOutageAt(post._id, '/v2/post/publish/creator_info/query/');

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const attempts = await attemptsOf(w, post._id);
    expect(attempts.map((a) => ({ n: a.n, phase: a.phase }))).toEqual([{ n: 1, phase: 'init_answered' }]);
    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(1);
    expect(tiktok.posts).toHaveLength(1);
  });

  it('never sends the init of an attempt whose lease lapsed while the database was away and the sweeper settled', async () => {
    const { openId, platform } = await connectCreator(w);
    const post = await queuePost(w, platform, [await storeMedia(w, await makeJpeg(64, 48))], { enqueue: false });
    await expireCreatorInfo(w.t.deps);

    // During the outage the claim lapses and the sweeper (another worker) gives up on attempt #1: a new
    // attempt publishes the post, and #1 must not send a second init once its database is back.
    await publishWithOutageAt(post._id, '/v2/post/publish/creator_info/query/', async () => {
      await waitFor('attempt #1', async () => (await latestAttempt(w.t.deps, post._id)) ?? undefined);
      await w.t.deps.db.publishAttempts.updateOne({ _id: `${post._id}#1` }, { $set: { leaseExpiresAt: new Date(0) } });
      await performSweep({ deps: w.t.deps });
    });

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const attempts = await attemptsOf(w, post._id);
    expect(attempts.map((a) => ({ n: a.n, phase: a.phase }))).toEqual([
      { n: 1, phase: 'created_nothing' },
      { n: 2, phase: 'init_answered' },
    ]);
    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(1);
    expect(tiktok.posts).toHaveLength(1);
  });
});
