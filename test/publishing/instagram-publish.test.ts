import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishPostJob } from '../../src/core/publishing/jobs.js';
import { makeJpeg, upload } from '../support/media.js';
import { call } from '../support/posts.js';
import { buildMp4 } from '../support/video.js';
import { attemptsOf, capSpent, settled, SLOW, storeMedia, waitFor } from './support.js';
import {
  connectInstagram,
  emulatorSettings,
  injectFault,
  publishedMedia,
  queueInstagramPost,
  startInstagramWorld,
  type InstagramWorld,
} from './instagram-world.js';

// Instagram posts published by a real worker through the container flow (contract 2.1): the emulator fetches every
// item from Postdeck's public media URLs, the containers are polled until FINISHED, then published once.

let w: InstagramWorld;
beforeAll(async () => {
  w = await startInstagramWorld({ imageProcessingMs: 30, videoProcessingMs: 60 });
}, 60_000);
afterAll(async () => {
  await w.close();
});

describe('Instagram publishing', SLOW, () => {
  it('publishes a single image once, with its caption, alt text and permalink', async () => {
    const { platform, account } = await connectInstagram(w);
    const image = await storeMedia(w, await makeJpeg(1080, 1080));
    const post = await queueInstagramPost(w, platform, [image], {
      content: 'One image #postdeck',
      settings: { alt_text: ['A red square'] },
    });

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const media = publishedMedia(w, account);
    expect(media).toHaveLength(1);
    expect(media[0]).toMatchObject({ mediaType: 'IMAGE', productType: 'FEED', caption: 'One image #postdeck' });
    expect(media[0]!.fetched).toMatchObject({ kind: 'image', width: 1080, height: 1080, bytes: image.size });
    expect(w.ig.emulator.control.containers.get(media[0]!.containerId)!.params.alt_text).toBe('A red square');
    expect(done.releaseId).toBe(media[0]!.id);
    expect(done.releaseUrl).toBe(`${w.ig.emulator.url}/p/${media[0]!.shortcode}/`);
    const [attempt] = await attemptsOf(w, post._id);
    expect(attempt!.publishId).toBe(media[0]!.containerId);
  });

  it('publishes a carousel of images and a video, in order, as one post', async () => {
    const { platform, account } = await connectInstagram(w);
    const items = [
      await storeMedia(w, await makeJpeg(1080, 1350)),
      await storeMedia(w, buildMp4({ durationSec: 8 })),
      await storeMedia(w, await makeJpeg(1080, 1080)),
    ];
    const post = await queueInstagramPost(w, platform, items, { content: 'Three slides' });

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const media = publishedMedia(w, account);
    expect(media).toHaveLength(1);
    expect(media[0]).toMatchObject({ mediaType: 'CAROUSEL_ALBUM', caption: 'Three slides' });
    const children = media[0]!.children.map((id) => w.ig.emulator.control.media.get(id)!);
    expect(children.map((child) => [child.mediaType, child.fetched?.height])).toEqual([
      ['IMAGE', 1350],
      ['VIDEO', 1920],
      ['IMAGE', 1080],
    ]);
    expect(done.releaseId).toBe(media[0]!.id);
  });

  it('publishes a 9:16 image sent with a fit as the 4:5 JPEG Postdeck rendered for it', async () => {
    const { platform, account } = await connectInstagram(w);
    const slide = await upload(w.server, w.tenant.apiKey, { bytes: await makeJpeg(1080, 1920), name: 'slide.jpg' });
    const { id: slideId } = (await slide.json()) as { id: string };
    const answer = await call(w.server, w.tenant.apiKey, 'POST', '/posts', {
      platformIds: [platform._id],
      content: 'A slide, framed',
      mode: 'now',
      mediaIds: [slideId],
      settings: { fit: { mode: 'crop' } },
    });
    expect(answer.status).toBe(201);
    const postId = (answer.body.results as { post: { root: { id: string } } }[])[0]!.post.root.id;
    const done = await settled(w, postId);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    expect(done.mediaIds).not.toEqual([slideId]);
    const [media] = publishedMedia(w, account);
    expect(media!.fetched).toMatchObject({ kind: 'image', width: 1080, height: 1350 });
  });

  it('publishes a Reel with share_to_feed', async () => {
    const { platform, account } = await connectInstagram(w);
    const video = await storeMedia(w, buildMp4({ durationSec: 12 }));
    const post = await queueInstagramPost(w, platform, [video], {
      content: 'A reel',
      settings: { share_to_feed: false },
    });

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const media = publishedMedia(w, account);
    expect(media).toHaveLength(1);
    expect(media[0]).toMatchObject({ mediaType: 'VIDEO', productType: 'REELS', caption: 'A reel' });
    expect(w.ig.emulator.control.containers.get(media[0]!.containerId)!.params.share_to_feed).toBe('false');
  });

  it('holds a post that would pass the rolling 24 h quota in QUEUE, saying why and until when', async () => {
    const { platform, account } = await connectInstagram(w);
    await emulatorSettings(w, { quotaTotal: 1 });
    try {
      const first = await queueInstagramPost(w, platform, [await storeMedia(w, await makeJpeg(800, 800))]);
      expect((await settled(w, first._id)).state).toBe('PUBLISHED');
      const publishedAt = publishedMedia(w, account)[0]!.publishedAt;

      const second = await queueInstagramPost(w, platform, [await storeMedia(w, await makeJpeg(800, 800))]);
      const held = await waitFor('the second post to be held', async () => {
        const post = await w.t.deps.db.posts.findOne({ _id: second._id });
        return post?.state === 'QUEUE' && post.errorText ? post : undefined;
      });
      expect(held.errorText).toMatch(/^Held: Instagram allows 1 posts through its API per account in 24 hours/);
      // Due when the first post leaves the rolling window (found to within minutes), never before.
      const day = 24 * 60 * 60_000;
      expect(held.dueAt!.getTime()).toBeGreaterThan(publishedAt + day);
      expect(held.dueAt!.getTime()).toBeLessThan(publishedAt + day + 10 * 60_000);
      expect(held.errorText).toContain(held.dueAt!.toISOString().replace(/\.\d+Z$/, 'Z'));
      expect((await attemptsOf(w, second._id)).map((a) => a.phase)).toEqual(['held']);
      expect(publishedMedia(w, account)).toHaveLength(1);
      // No container was made for the held post.
      const containers = [...w.ig.emulator.control.containers.values()].filter((c) => c.accountId === account.id);
      expect(containers).toHaveLength(1);
    } finally {
      await emulatorSettings(w, { quotaTotal: 50 });
    }
  });
});

describe('Instagram refusals', SLOW, () => {
  it('ends a refusal that will not pass in ERROR with plain words, refunded, nothing posted', async () => {
    const { platform, account } = await connectInstagram(w);
    await injectFault(w, account, { endpoint: 'create_container', code: 36003, subcode: 2207009 });
    const post = await queueInstagramPost(w, platform, [await storeMedia(w, await makeJpeg(900, 900))]);

    const done = await settled(w, post._id);
    expect(done.state).toBe('ERROR');
    expect(done.errorText).toBe(
      "Instagram refused an image's aspect ratio: it takes 4:5 (portrait) to 1.91:1 (landscape). Nothing was posted.",
    );
    expect((await attemptsOf(w, post._id)).map((a) => a.phase)).toEqual(['created_nothing']);
    expect(await capSpent(w, post)).toBe(false);
    expect(publishedMedia(w, account)).toHaveLength(0);
  });

  it('tries again after Instagram failed to fetch the media, and posts once', async () => {
    const { platform, account } = await connectInstagram(w);
    await injectFault(w, account, { endpoint: 'create_container', code: 9004, subcode: 2207052 });
    const post = await queueInstagramPost(w, platform, [await storeMedia(w, await makeJpeg(900, 900))]);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    expect((await attemptsOf(w, post._id)).map((a) => a.phase)).toEqual(['created_nothing', 'init_answered']);
    expect(publishedMedia(w, account)).toHaveLength(1);
  });

  it('counts no hold against the attempts: a post held five times still gets its retries', async () => {
    const { platform, account } = await connectInstagram(w);
    await injectFault(w, account, { endpoint: 'create_container', code: 9004, subcode: 2207052 });
    const post = await queueInstagramPost(w, platform, [await storeMedia(w, await makeJpeg(900, 900))], {
      enqueue: false,
    });
    // Five earlier attempts the quota held (as many as a post may use).
    for (let n = 1; n <= 5; n += 1) {
      await w.t.deps.db.publishAttempts.insertOne({
        _id: `${post._id}#${n}`,
        postId: post._id,
        workspaceId: post.workspaceId,
        n,
        worker: 'an earlier worker',
        claimedAt: new Date(),
        leaseExpiresAt: new Date(),
        phase: 'held',
        publishId: null,
        events: [],
      });
    }
    await w.t.deps.jobs.enqueue(publishPostJob, { postId: post._id });

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    expect((await attemptsOf(w, post._id)).map((a) => a.phase).slice(5)).toEqual(['created_nothing', 'init_answered']);
    expect(publishedMedia(w, account)).toHaveLength(1);
  });
});

describe('Instagram publishing through the API', SLOW, () => {
  it('a carousel created with mode now ends PUBLISHED with its permalink, its attempt naming the container', async () => {
    const { platform, account } = await connectInstagram(w);
    const mediaIds: string[] = [];
    for (const height of [1350, 1080]) {
      const response = await upload(w.server, w.tenant.apiKey, {
        bytes: await makeJpeg(1080, height),
        name: `slide-${height}.jpg`,
        type: 'image/jpeg',
      });
      expect(response.status).toBe(201);
      mediaIds.push(((await response.json()) as { id: string }).id);
    }
    const created = await call(w.server, w.tenant.apiKey, 'POST', '/posts', {
      platformIds: [platform._id],
      content: 'Through the API #postdeck',
      mode: 'now',
      mediaIds,
      settings: { alt_text: ['First slide', null] },
    });
    expect(created.status).toBe(201);
    const [result] = created.body.results as { post: { root: { id: string } } }[];

    const root = await waitFor('the post to be published', async () => {
      const { body } = await call(w.server, w.tenant.apiKey, 'GET', `/posts/${result!.post.root.id}`);
      const group = body as unknown as { root: Record<string, unknown> };
      return ['PUBLISHED', 'ERROR'].includes(group.root.state as string) ? group.root : undefined;
    });
    const [media] = publishedMedia(w, account);
    expect(root).toMatchObject({
      state: 'PUBLISHED',
      releaseId: media!.id,
      releaseUrl: `${w.ig.emulator.url}/p/${media!.shortcode}/`,
      errorText: null,
    });
    expect(root.attempts).toMatchObject([{ n: 1, phase: 'init_answered', publishId: media!.containerId }]);
    const children = media!.children.map((id) => w.ig.emulator.control.media.get(id)!);
    expect(children.map((child) => child.fetched?.height)).toEqual([1350, 1080]);
    const firstItem = w.ig.emulator.control.containers.get(children[0]!.containerId)!;
    expect(firstItem.params.alt_text).toBe('First slide');
  });
});
