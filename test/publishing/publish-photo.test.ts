import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renditionId } from '../../src/core/media/renditions.js';
import { makeJpeg, makeWebp } from '../support/media.js';
import {
  connectCreator,
  emulatorPosts,
  queuePost,
  settled,
  SLOW,
  startWorld,
  storeMedia,
  type PublishingWorld,
} from './support.js';

// Photo carousels published by a real worker: TikTok (the emulator) pulls every image from Postdeck's public
// media URLs, in order; images over 1080p are pulled as their JPEG rendition.

let w: PublishingWorld;
beforeAll(async () => {
  w = await startWorld();
}, 60_000);
afterAll(async () => {
  await w.close();
});

describe('photo publishing', SLOW, () => {
  it('publishes a 35-image carousel; each pulled image is byte-identical to its original or rendition', async () => {
    const { openId, platform } = await connectCreator(w);
    const images = [];
    for (let i = 0; i < 35; i += 1) {
      // Mostly images TikTok takes as they are (JPEG and WebP), and two too large for 1080p.
      const bytes =
        i === 7 || i === 20
          ? await makeJpeg(2400, 1200)
          : i % 2 === 0
            ? await makeJpeg(64 + i, 48)
            : await makeWebp(40, 60 + i);
      images.push(await storeMedia(w, bytes));
    }
    const post = await queuePost(w, platform, images, {
      content: 'A long description of the carousel',
      settings: {
        content_posting_method: 'DIRECT_POST',
        privacy_level: 'PUBLIC_TO_EVERYONE',
        title: 'Carousel',
        photo_cover_index: 3,
      },
    });

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });

    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(1);
    expect(tiktok.posts).toHaveLength(1);
    const published = tiktok.posts[0]!;
    expect(published.kind).toBe('photo');
    expect(published.media).toHaveLength(35);
    const sourceInfo = published.request.source_info as Record<string, unknown>;
    expect(sourceInfo.photo_cover_index).toBe(3);
    expect((published.request.post_info as Record<string, unknown>).title).toBe('Carousel');
    expect((published.request.post_info as Record<string, unknown>).description).toBe(post.content);

    for (const [i, image] of images.entries()) {
      const pulled = published.media[i]!;
      if (i === 7 || i === 20) {
        const rendition = await w.t.deps.db.mediaRenditions.findOne({ _id: renditionId(image._id, 'tiktok') });
        expect(rendition).not.toBeNull();
        expect(pulled.sha256).toBe(rendition!.sha256);
        expect(pulled.format).toBe('jpeg');
      } else {
        expect(pulled.sha256).toBe(image.sha256);
      }
    }
    expect(done.releaseId).toBe(published.postIds[0]);
    expect(done.releaseUrl).toBe(`https://www.tiktok.com/@${platform.displayHandle}/photo/${published.postIds[0]}`);
  });
});
