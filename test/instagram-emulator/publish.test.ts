import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMp4 } from '../support/video.js';
import { graphErrorOf, Harness, jpeg } from './harness.js';

let h: Harness;
let image45: string;
beforeAll(async () => {
  h = await Harness.start();
  image45 = h.media.serve('/slide.jpg', await jpeg(1080, 1350));
});
afterAll(async () => {
  await h.close();
});

type User = { userId: string; token: string };

async function item(user: User, extra: Record<string, string> = {}): Promise<string> {
  return h.containerOf(user.userId, user.token, { image_url: image45, is_carousel_item: 'true', ...extra });
}

function publish(user: User, creationId: string): Promise<Response> {
  return h.graph('POST', `/${user.userId}/media_publish`, user.token, { creation_id: creationId });
}

async function publishedId(user: User, creationId: string): Promise<string> {
  const response = await publish(user, creationId);
  const body = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.id;
}

describe('carousels', () => {
  it('publishes 2-10 items (images and a video) and reads back the album, its children and permalink', async () => {
    const user = await h.connect({ username: 'slides' });
    const video = h.media.serve('/clip.mp4', buildMp4({ width: 1080, height: 1350, durationSec: 5 }));
    const children = [
      await item(user),
      await item(user),
      await h.containerOf(user.userId, user.token, { media_type: 'VIDEO', video_url: video, is_carousel_item: 'true' }),
    ];
    for (const child of children) expect((await h.settled(child, user.token)).status_code).toBe('FINISHED');
    const parent = await h.containerOf(user.userId, user.token, {
      media_type: 'CAROUSEL',
      children: children.join(','),
      caption: 'Three slides',
      collaborators: '["ada"]',
    });
    expect((await h.settled(parent, user.token)).status_code).toBe('FINISHED');
    const mediaId = await publishedId(user, parent);
    const read = await h.graph('GET', `/${mediaId}`, user.token, {
      fields: 'media_type,media_product_type,permalink,children,caption',
    });
    const body = (await read.json()) as { children: { data: { id: string }[] }; permalink: string };
    expect(body).toMatchObject({
      id: mediaId,
      media_type: 'CAROUSEL_ALBUM',
      media_product_type: 'FEED',
      caption: 'Three slides',
    });
    expect(body.children.data).toHaveLength(3);
    expect((await fetch(body.permalink)).status).toBe(200);
    const listed = (await (await h.control('GET', `/__control/media?accountId=${user.userId}`)).json()) as {
      media: unknown[];
    };
    expect(listed.media).toEqual([
      expect.objectContaining({
        id: mediaId,
        children: [
          {
            id: expect.any(String),
            mediaType: 'IMAGE',
            item: expect.objectContaining({ kind: 'image', width: 1080, height: 1350 }),
          },
          { id: expect.any(String), mediaType: 'IMAGE', item: expect.objectContaining({ width: 1080, height: 1350 }) },
          {
            id: expect.any(String),
            mediaType: 'VIDEO',
            item: expect.objectContaining({ kind: 'video', durationSec: 5 }),
          },
        ],
      }),
    ]);
    const page = await (await h.control('GET', '/__control/media/page')).text();
    expect(page).toContain('Carousel of 3');
    expect(page).toContain('<figcaption>1080x1350</figcaption>');
  });

  it('refuses fewer than 2 or more than 10 children with 100 / 2207028', async () => {
    const user = await h.connect();
    const ids = await Promise.all(Array.from({ length: 11 }, () => item(user)));
    for (const children of [ids.slice(0, 1), ids]) {
      const response = await h.create(user.userId, user.token, {
        media_type: 'CAROUSEL',
        children: children.join(','),
      });
      expect(await graphErrorOf(response)).toMatchObject({ code: 100, error_subcode: 2207028 });
    }
    await h.containerOf(user.userId, user.token, { media_type: 'CAROUSEL', children: ids.slice(0, 10).join(',') });
  });

  it('refuses caption and collaborators on a child, and a child still IN_PROGRESS (9007 / 2207027)', async () => {
    const user = await h.connect();
    for (const name of ['caption', 'collaborators']) {
      const response = await h.create(user.userId, user.token, {
        image_url: image45,
        is_carousel_item: 'true',
        [name]: '["a"]',
      });
      expect(await graphErrorOf(response)).toMatchObject({ code: 100, message: `(#100) param ${name} is not allowed` });
    }
    await h.control('PATCH', '/__control/settings', { imageProcessingMs: 600_000 });
    const slow = [await item(user), await item(user)];
    await h.control('PATCH', '/__control/settings', { imageProcessingMs: 0 });
    const response = await h.create(user.userId, user.token, { media_type: 'CAROUSEL', children: slow.join(',') });
    expect(await graphErrorOf(response)).toMatchObject({ code: 9007, error_subcode: 2207027 });
  });
});

describe('media_publish', () => {
  it('answers 9007 / 2207027 before FINISHED, then publishes once; publishing it again makes no second post', async () => {
    const user = await h.connect();
    await h.control('PATCH', '/__control/settings', { imageProcessingMs: 600_000 });
    const container = await h.containerOf(user.userId, user.token, { image_url: image45, caption: 'one' });
    await h.control('PATCH', '/__control/settings', { imageProcessingMs: 0 });
    const early = await publish(user, container);
    expect(await graphErrorOf(early)).toMatchObject({
      code: 9007,
      error_subcode: 2207027,
      message: 'The media is not ready for publishing, please wait for a moment',
    });
    await h.control('POST', '/__control/clock', { advanceSec: 601 });
    const mediaId = await publishedId(user, container);
    expect(await h.settled(container, user.token)).toMatchObject({ status_code: 'PUBLISHED' });
    expect(await publishedId(user, container)).toBe(mediaId);
    const listed = (await (await h.control('GET', `/__control/media?accountId=${user.userId}`)).json()) as {
      media: unknown[];
    };
    expect(listed.media).toHaveLength(1);
    const read = await h.graph('GET', `/${mediaId}`, user.token, { fields: 'media_type,media_product_type' });
    expect(await read.json()).toEqual({ id: mediaId, media_type: 'IMAGE', media_product_type: 'FEED' });
  });

  it('reads a published Reel as VIDEO / REELS', async () => {
    const user = await h.connect();
    const url = h.media.serve('/r.mp4', buildMp4({ durationSec: 8 }));
    const container = await h.containerOf(user.userId, user.token, { media_type: 'REELS', video_url: url });
    expect((await h.settled(container, user.token)).status_code).toBe('FINISHED');
    const mediaId = await publishedId(user, container);
    const read = await h.graph('GET', `/${mediaId}`, user.token, { fields: 'media_type,media_product_type' });
    expect(await read.json()).toEqual({ id: mediaId, media_type: 'VIDEO', media_product_type: 'REELS' });
  });

  it('turns a container EXPIRED after 24 h and refuses to publish it (24 / 2207008)', async () => {
    const user = await h.connect();
    const container = await h.containerOf(user.userId, user.token, { image_url: image45 });
    await h.control('POST', `/__control/containers/${container}/expire`);
    expect((await h.settled(container, user.token)).status_code).toBe('EXPIRED');
    expect(await graphErrorOf(await publish(user, container))).toMatchObject({ code: 24, error_subcode: 2207008 });
    const other = await h.containerOf(user.userId, user.token, { image_url: image45 });
    await h.control('POST', '/__control/clock', { advanceSec: 86_401 });
    expect((await h.settled(other, user.token)).status_code).toBe('EXPIRED');
  });
});

describe("another account's objects", () => {
  it('answers 100 / 33 for a container, media or user path of another account, and 2207008 for its creation_id', async () => {
    const owner = await h.connect();
    const stranger = await h.connect();
    const container = await h.containerOf(owner.userId, owner.token, { image_url: image45 });
    const mediaId = await publishedId(owner, await h.containerOf(owner.userId, owner.token, { image_url: image45 }));
    for (const path of [`/${container}`, `/${mediaId}`, `/${mediaId}/insights?metric=views`]) {
      const read = await h.graph('GET', path.split('?')[0] ?? '', stranger.token, { metric: 'views' });
      expect(await graphErrorOf(read), path).toMatchObject({ code: 100, error_subcode: 33 });
    }
    const create = await h.create(owner.userId, stranger.token, { image_url: image45 });
    expect(await graphErrorOf(create)).toMatchObject({ code: 100, error_subcode: 33 });
    expect(await graphErrorOf(await publish(stranger, container))).toMatchObject({ code: 24, error_subcode: 2207008 });
  });
});

describe('the rolling 24 h quota', () => {
  it('counts publishes (a carousel as one), refuses past quota_total with 9 / 2207042, and frees up after 24 h', async () => {
    await h.control('PATCH', '/__control/settings', { quotaTotal: 2 });
    const user = await h.connect();
    const limit = async (): Promise<unknown> =>
      (
        await h.graph('GET', `/${user.userId}/content_publishing_limit`, user.token, { fields: 'config,quota_usage' })
      ).json();
    expect(await limit()).toEqual({ data: [{ quota_usage: 0, config: { quota_total: 2, quota_duration: 86400 } }] });
    const carousel = await h.containerOf(user.userId, user.token, {
      media_type: 'CAROUSEL',
      children: [await item(user), await item(user)].join(','),
    });
    await publishedId(user, carousel);
    await publishedId(user, await h.containerOf(user.userId, user.token, { image_url: image45 }));
    expect(await limit()).toEqual({ data: [{ quota_usage: 2, config: { quota_total: 2, quota_duration: 86400 } }] });
    const third = await h.containerOf(user.userId, user.token, { image_url: image45 });
    expect(await graphErrorOf(await publish(user, third))).toMatchObject({ code: 9, error_subcode: 2207042 });
    await h.control('POST', '/__control/clock', { advanceSec: 86_401 });
    expect(await limit()).toMatchObject({ data: [{ quota_usage: 0 }] });
    await publishedId(user, await h.containerOf(user.userId, user.token, { image_url: image45 }));
    await h.control('PATCH', '/__control/settings', { quotaTotal: 50 });
  });
});
