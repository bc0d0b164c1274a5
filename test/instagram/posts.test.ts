import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { connectedInstagram, startInstagramFixture, type InstagramFixture } from '../support/instagram.js';
import { buildMedia } from '../support/media.js';
import { buildImages, call, connectedTenant, DIRECT, type Tenant } from '../support/posts.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

let tiktok: TikTokFixture;
let ig: InstagramFixture;
let t: TestDatabase;
let server: TestServer;
let tenant: Tenant;
let tok: PlatformDoc;
let gram: PlatformDoc;
let images: string[];

beforeAll(async () => {
  tiktok = await startTikTokFixture();
  ig = await startInstagramFixture();
  t = await openTestDatabase({ tiktok: tiktok.config, instagram: ig.config });
  server = await startTestServer(t);
  ({ tenant, platform: tok } = await connectedTenant(t, tiktok));
  ({ platform: gram } = await connectedInstagram(t, ig, tenant));
  // 1080x1350 JPEGs: fine for a TikTok photo post and for an Instagram carousel.
  images = (await buildImages(t.deps, tenant.workspaceId, 2)).map((m) => m._id);
});
afterAll(async () => {
  await server.stop();
  await t.close();
  await tiktok.emulator.stop();
  await ig.close();
});

function create(body: Record<string, unknown>) {
  return call(server, tenant.apiKey, 'POST', '/posts', { content: 'Two cats #cats', mode: 'draft', ...body });
}

describe('POST /posts with Instagram', () => {
  it('answers 400 naming the field Instagram refuses: a 9:16 image, a long caption, a Reels-only setting', async () => {
    const tall = await buildMedia(t.deps, tenant.workspaceId, { thumbnailMetadata: { width: 1080, height: 1920 } });
    const refused = await create({ platformIds: [gram._id], mediaIds: [images[0], tall._id] });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_request');
    expect(refused.body.details).toEqual([
      { path: ['body', 'mediaIds', 1], message: expect.stringContaining('from 4:5 (0.8) to 1.91:1 in aspect ratio') },
    ]);
    const long = await create({ platformIds: [gram._id], mediaIds: [images[0]], content: 'a'.repeat(2201) });
    expect(long.body.details).toEqual([
      { path: ['body', 'content'], message: expect.stringContaining('at most 2200') },
    ]);
    const reelOnly = await create({
      platformIds: [gram._id],
      mediaIds: [images[0]],
      settings: { share_to_feed: true },
    });
    expect(reelOnly.body.details).toEqual([
      { path: ['body', 'settings', 'share_to_feed'], message: 'share_to_feed applies to Reels (one video) only' },
    ]);
  });

  it('refuses a TikTok setting when only Instagram is named, and a key no network declares', async () => {
    const tiktokKey = await create({
      platformIds: [gram._id],
      mediaIds: images,
      settings: { privacy_level: 'SELF_ONLY' },
    });
    expect(tiktokKey.status).toBe(400);
    expect(tiktokKey.body.details).toEqual([
      { path: ['body', 'settings', 'privacy_level'], message: expect.stringContaining('not an Instagram setting') },
    ]);
    const unknown = await create({
      platformIds: [tok._id, gram._id],
      mediaIds: images,
      settings: { ...DIRECT, mood: 1 },
    });
    expect(unknown.status).toBe(400);
  });

  it('makes one group per platform from one request, each taking its own settings keys', async () => {
    const both = await create({
      platformIds: [tok._id, gram._id],
      mediaIds: images,
      settings: { ...DIRECT, title: 'Cats', alt_text: ['A cat', 'Another cat'], collaborators: ['ana'] },
    });
    expect(both.status).toBe(201);
    const results = both.body.results as { platformId: string; status: string; post: { root: { id: string } } }[];
    expect(results.map((r) => [r.platformId, r.status])).toEqual([
      [tok._id, 'created'],
      [gram._id, 'created'],
    ]);
    const [tokPost, gramPost] = await Promise.all(results.map((r) => t.deps.db.posts.findOne({ _id: r.post.root.id })));
    expect(tokPost?.settings).toMatchObject({ ...DIRECT, title: 'Cats' });
    expect(tokPost?.settings).not.toHaveProperty('alt_text');
    expect(gramPost?.settings).toEqual({ alt_text: ['A cat', 'Another cat'], collaborators: ['ana'] });
    expect(gramPost?.groupId).not.toBe(tokPost?.groupId);
  });

  it('creates the TikTok group when Instagram refuses its post, and says why for Instagram', async () => {
    const answer = await create({
      platformIds: [tok._id, gram._id],
      mediaIds: images,
      settings: { ...DIRECT, collaborators: ['a', 'b', 'c', 'd'] },
    });
    expect(answer.status).toBe(201);
    const results = answer.body.results as { platformId: string; status: string; error?: { code: string } }[];
    expect(results[0]).toMatchObject({ platformId: tok._id, status: 'created' });
    expect(results[1]).toMatchObject({ platformId: gram._id, status: 'failed', error: { code: 'invalid_request' } });
  });
});

describe('GET /platforms/{id}/schema for Instagram', () => {
  it('states the post kinds, settings, limits and the publishing quota left', async () => {
    const answer = await call(server, tenant.apiKey, 'GET', `/platforms/${gram._id}/schema`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      platformId: gram._id,
      provider: 'instagram',
      quota: { used: 0, total: 50, left: 50, windowHours: 24 },
      content: { maxLength: 2200, maxHashtags: 30, maxMentions: 20 },
      media: { image: { maxBytes: 8 * 1024 * 1024, minWidthPx: 320, maxWidthPx: 1440 }, carousel: { maxCount: 10 } },
    });
    expect(Object.keys((answer.body.settings as { properties: object }).properties)).toEqual([
      'alt_text',
      'collaborators',
      'share_to_feed',
      'thumb_offset',
      'fit',
    ]);
    expect((await ig.control('PATCH', '/__control/settings', { quotaTotal: 25 })).status).toBe(200);
    const again = await call(server, tenant.apiKey, 'GET', `/platforms/${gram._id}/schema`);
    expect(again.body.quota).toEqual({ used: 0, total: 25, left: 25, windowHours: 24 });
  });
});
