import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIB } from '../../src/core/providers/tiktok/chunk-plan.js';
import { buildMp4OfSize } from '../support/video.js';
import {
  attemptsOf,
  connectCreator,
  control,
  emulatorPosts,
  queuePost,
  settled,
  SLOW,
  startWorld,
  storeMedia,
  waitFor,
  type PublishingWorld,
} from './support.js';

// Video posts published by a real worker to the emulator: FILE_UPLOAD in several chunks streamed from the
// media store, the exact 19-digit post id, and the recoverable faults (a chunk's 5xx, an expired token).

let w: PublishingWorld;
beforeAll(async () => {
  w = await startWorld();
}, 60_000);
afterAll(async () => {
  await w.close();
});

describe('video publishing', SLOW, () => {
  it('uploads an 11 MiB video in chunks and stores the post id exactly as TikTok sent it', async () => {
    const { openId, platform } = await connectCreator(w);
    const bytes = buildMp4OfSize(11 * MIB + 321);
    const video = await storeMedia(w, bytes);
    const post = await queuePost(w, platform, [video]);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });

    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(1);
    expect(tiktok.posts).toHaveLength(1);
    const published = tiktok.posts[0]!;
    expect(published.upload!.totalChunkCount).toBe(2);
    expect(published.upload!.chunksReceived).toBe(2);
    expect(published.media[0]!.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(published.postIds[0]).toMatch(/^\d{19}$/);
    // Character for character: the id is above 2^53, so a number round trip would change it.
    expect(done.releaseId).toBe(published.postIds[0]);
    expect(done.releaseUrl).toBe(`https://www.tiktok.com/@${platform.displayHandle}/video/${published.postIds[0]}`);
    expect((published.request.post_info as Record<string, unknown>).title).toBe(post.content);

    const attempts = await attemptsOf(w, post._id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ n: 1, phase: 'init_answered', publishId: published.publishId });
    expect(attempts[0]!.worker).toMatch(/^[0-9a-f-]{36}$/);
    const events = attempts[0]!.events.map((e) => e.what);
    expect(events).toEqual(
      expect.arrayContaining(['claimed', 'init_sent', 'init_answered', 'upload_complete', 'status']),
    );
    expect(events.indexOf('init_sent')).toBeLessThan(events.indexOf('init_answered'));
    // Events carry what TikTok answered, never a token.
    expect(JSON.stringify(attempts[0]!.events)).not.toMatch(/act\.|rft\.|Bearer/);
  });

  it('sends a chunk again after a 5xx of the upload host and still publishes once', async () => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}/failures`, { endpoint: 'upload', status: 503, code: 'internal_error' });
    const bytes = buildMp4OfSize(6 * MIB);
    const post = await queuePost(w, platform, [await storeMedia(w, bytes)]);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(1);
    expect(tiktok.posts[0]!.media[0]!.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(done.releaseId).toBe(tiktok.posts[0]!.postIds[0]);
    // The injected 503 was answered (and so the chunk was sent twice).
    const account = (await (await fetch(`${w.f.emulator.url}/__control/accounts/${openId}`)).json()) as {
      failures: unknown[];
    };
    expect(account.failures).toEqual([]);
  });

  it('refreshes the token when TikTok answers 401 to the init, sends the init again and publishes once', async () => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}/failures`, {
      endpoint: 'video_init',
      status: 401,
      code: 'access_token_invalid',
    });
    const post = await queuePost(w, platform, [await storeMedia(w, buildMp4OfSize(300_000))]);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const tiktok = await emulatorPosts(w, openId);
    // The 401 created nothing; the second init is the post.
    expect(tiktok.initRequests[openId]).toBe(2);
    expect(tiktok.posts).toHaveLength(1);
    expect(done.releaseId).toBe(tiktok.posts[0]!.postIds[0]);
  });

  it('keeps polling through an access token that expires while TikTok processes the post', async () => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}`, { nextPublish: { processingPolls: 4 } }, 'PATCH');
    const post = await queuePost(w, platform, [await storeMedia(w, buildMp4OfSize(300_000))]);
    await waitFor('the publish id', async () => {
      const attempt = (await attemptsOf(w, post._id))[0];
      const current = await w.t.deps.db.posts.findOne({ _id: post._id });
      if (current?.state === 'ERROR') throw new Error(`ERROR: ${current.errorText}`);
      return attempt?.publishId ?? undefined;
    });
    await control(w, `/accounts/${openId}/tokens`, { action: 'expire_access' });

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(1);
    expect(done.releaseId).toBe(tiktok.posts[0]!.postIds[0]);
    const stored = await w.t.deps.db.platforms.findOne({ _id: platform._id });
    expect(stored!.tokenExpiresAt!.getTime()).toBeGreaterThan(platform.tokenExpiresAt!.getTime());
  });
});
