import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCreatorInfo } from '../../src/core/providers/tiktok/rules/creator-info-cache.js';
import { TikTokHttp } from '../../src/core/providers/tiktok/http.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { makeJpeg } from '../support/media.js';
import { expireCreatorInfo } from '../support/tiktok.js';
import {
  connectCreator,
  emulatorPosts,
  PUBLIC_SETTINGS,
  queuePost,
  settled,
  SLOW,
  startWorld,
  storeMedia,
  waitFor,
  type PublishingWorld,
} from '../publishing/support.js';
import { withTikTokHttp } from '../support/tiktok.js';

let w: PublishingWorld;
const replicas: Array<{ server: TestServer; calls: number }> = [];
beforeAll(async () => {
  w = await startWorld();
  // Two more server processes on the same database, each with its own TikTok client, limiter and memory.
  for (let i = 0; i < 2; i++) {
    const replica = { server: undefined as unknown as TestServer, calls: 0 };
    const counted: typeof fetch = (input, init) => {
      if (input instanceof URL || typeof input === 'string' ? String(input).includes('/creator_info/query/') : false)
        replica.calls += 1;
      return fetch(input, init);
    };
    const tiktok = new TikTokHttp(w.f.config, w.t.deps.logger, { fetch: counted });
    replica.server = await startTestServer({ ...w.t, deps: withTikTokHttp(w.t.deps, tiktok) });
    replicas.push(replica);
  }
});
afterAll(async () => {
  for (const replica of replicas) await replica.server.stop();
  await w.close();
});

const schemaOf = (server: TestServer, platformId: string) =>
  server.request(`/public/v1/platforms/${platformId}/schema`, { apiKey: w.tenant.apiKey });

describe('creator info under bursts of API reads', () => {
  it(
    'reads it from TikTok once for a burst of schema reads and drafts, and reuses it in another process',
    SLOW,
    async () => {
      const { platform } = await connectCreator(w);
      const photo = await storeMedia(w, await makeJpeg(720, 1280));
      const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
      const draft = () =>
        a.server.request('/public/v1/posts', {
          method: 'POST',
          apiKey: w.tenant.apiKey,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            platformIds: [platform._id],
            mode: 'draft',
            content: 'burst',
            mediaIds: [photo._id],
            settings: PUBLIC_SETTINGS,
          }),
        });
      // A burst of 40 schema reads and 10 drafts over two processes, nothing stored yet.
      const answers = await Promise.all([
        ...Array.from({ length: 20 }, () => schemaOf(a.server, platform._id)),
        ...Array.from({ length: 20 }, () => schemaOf(b.server, platform._id)),
        ...Array.from({ length: 10 }, draft),
      ]);
      expect(answers.map((x) => x.status).sort()).toEqual([...Array(40).fill(200), ...Array(10).fill(201)].sort());
      // Each process asked TikTok at most once for the whole burst.
      expect(a.calls).toBeLessThanOrEqual(1);
      expect(b.calls).toBeLessThanOrEqual(1);
      expect(a.calls + b.calls).toBeGreaterThanOrEqual(1);
      expect(await w.t.deps.db.creatorInfo.countDocuments({ _id: platform._id })).toBe(1);
      // Within the half minute, a process finds the stored answer rather than asking again.
      const before = a.calls + b.calls;
      const stored = await w.t.deps.db.creatorInfo.findOne({ _id: platform._id });
      for (const replica of [a, b]) {
        const answer = await schemaOf(replica.server, platform._id);
        // checkedAt says when TikTok was asked, not when the stored answer was served.
        expect(await answer.json()).toMatchObject({ checkedAt: stored?.fetchedAt.toISOString() });
      }
      expect(a.calls + b.calls).toBe(before);
    },
  );

  it('lets the engine reuse its own fresh answer with no database read before each init', SLOW, async () => {
    const { platform } = await connectCreator(w);
    const first = await readCreatorInfo(w.t.deps, platform, 'background');
    // Its answer is stored for other processes once nothing publishes (at once here).
    const stored = await waitFor('the stored answer', async () => {
      const doc = await w.t.deps.db.creatorInfo.findOne({ _id: platform._id });
      return doc && doc.fetchedAt.getTime() === first.checkedAt.getTime() ? doc : undefined;
    });
    expect(stored.result).toEqual({ info: first.info, cannotPost: first.cannotPost });
    // Were the engine to look in the database again, it would find nothing and ask TikTok anew.
    await w.t.deps.db.creatorInfo.deleteOne({ _id: platform._id });
    const again = await readCreatorInfo(w.t.deps, platform, 'background');
    expect(again.checkedAt).toEqual(first.checkedAt);
    expect(await w.t.deps.db.creatorInfo.countDocuments({ _id: platform._id })).toBe(0);
  });

  it(
    'answers 429 rate_limited with Retry-After at once when requests have used their share, while the engine still publishes',
    SLOW,
    async () => {
      const { openId, platform } = await connectCreator(w);
      // Each read finds the stored answer too old and asks TikTok. Requests may use 15 of TikTok's 20 a
      // minute (connecting the account used one of them); the next one is refused at once, not held.
      let refused: Response | undefined;
      let served = 0;
      while (!refused && served < 16) {
        await expireCreatorInfo(w.t.deps);
        const answer = await schemaOf(w.server, platform._id);
        if (answer.status === 200) served += 1;
        else refused = answer;
      }
      expect(served).toBe(14);
      if (!refused) throw new Error('no read was refused');
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({
        code: 'rate_limited',
        message: expect.stringMatching(/retry in \d+ s/),
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);

      // The engine's check before publishing asks TikTok too (the stored answer is old), from its own share.
      const post = await queuePost(w, platform, [await storeMedia(w, await makeJpeg(720, 1280))]);
      expect((await settled(w, post._id, ['PUBLISHED', 'ERROR'], 30_000)).state).toBe('PUBLISHED');
      expect((await emulatorPosts(w, openId)).posts).toHaveLength(1);
    },
  );
});
