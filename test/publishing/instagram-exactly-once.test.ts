import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaDoc } from '../../src/core/media/documents.js';
import { publicUrlOf } from '../../src/core/media/view.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { withInstagramToken } from '../../src/core/providers/instagram/connect/token-access.js';
import { createContainer, readContainer } from '../../src/core/providers/instagram/publish/containers.js';
import { sweepPostsJob } from '../../src/core/publishing/jobs.js';
import { makeJpeg } from '../support/media.js';
import { attemptsOf, settled, SLOW, storeMedia, waitFor } from './support.js';
import {
  connectInstagram,
  emulatorSettings,
  injectFault,
  publishedMedia,
  queueInstagramPost,
  startInstagramWorld,
  type InstagramWorld,
} from './instagram-world.js';

// Exactly once on Instagram: the container id is stored before media_publish, and after any doubt the container
// decides (PUBLISHED is done). Not-ready is waited out, an expired container is made anew, and a worker that died
// between the container and the publish is finished by the sweeper, never with a second post.

let w: InstagramWorld;
beforeAll(async () => {
  w = await startInstagramWorld();
}, 60_000);
afterAll(async () => {
  await w.close();
});

const PAST = () => new Date(Date.now() - 5_000);

async function imagePost(platform: PlatformDoc): Promise<{ post: PostDoc; image: MediaDoc }> {
  const image = await storeMedia(w, await makeJpeg(900, 900));
  return { post: await queueInstagramPost(w, platform, [image]), image };
}

/** What a worker that died after making the container left: the post PUBLISHING, its attempt's lease run out. */
async function stalledWithContainer(platform: PlatformDoc, containerId: string, image: MediaDoc): Promise<PostDoc> {
  const post = await queueInstagramPost(w, platform, [image], { state: 'PUBLISHING', enqueue: false });
  await w.t.deps.db.publishAttempts.insertOne({
    _id: `${post._id}#1`,
    postId: post._id,
    workspaceId: post.workspaceId,
    n: 1,
    worker: randomUUID(),
    claimedAt: new Date(),
    leaseExpiresAt: PAST(),
    phase: 'init_answered',
    publishId: containerId,
    events: [],
  });
  return post;
}

/** Makes a FINISHED image container the way a worker does, through Postdeck's own client. */
async function finishedContainer(platform: PlatformDoc, image: MediaDoc): Promise<string> {
  const http = w.ig.http;
  return withInstagramToken(w.t.deps, platform, async (token) => {
    const id = await createContainer(http, token, platform.providerAccountId, {
      image_url: publicUrlOf(image, w.t.deps.media.publicBaseUrl),
    });
    await waitFor('the container to finish', async () =>
      (await readContainer(http, token, id)).code === 'FINISHED' ? true : undefined,
    );
    return id;
  });
}

function republishes(): number {
  return w.ig.emulator.control.republishAttempts;
}

describe('Instagram exactly once', SLOW, () => {
  it('waits out "not ready" (9007) at media_publish and publishes once', async () => {
    const { platform, account } = await connectInstagram(w);
    await injectFault(w, account, { endpoint: 'media_publish', code: 9007, subcode: 2207027, times: 2 });
    const { post } = await imagePost(platform);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    expect(publishedMedia(w, account)).toHaveLength(1);
    const details = (await attemptsOf(w, post._id))[0]!.events.map((e) => e.detail ?? '');
    expect(details.some((d) => d.includes('not ready yet (9007/2207027)'))).toBe(true);
  });

  it('makes an expired container again, in a new attempt, and publishes once', async () => {
    const { platform, account } = await connectInstagram(w);
    // The first container stays IN_PROGRESS until it is expired below.
    await emulatorSettings(w, { imageProcessingMs: 10 * 60_000 });
    const { post } = await imagePost(platform);
    const first = await waitFor(
      'the first container',
      async () => (await attemptsOf(w, post._id))[0]?.publishId ?? undefined,
    );
    await emulatorSettings(w, { imageProcessingMs: 0 });
    expect((await w.ig.control('POST', `/__control/containers/${first}/expire`)).status).toBe(200);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const attempts = await attemptsOf(w, post._id);
    expect(attempts.map((a) => a.phase)).toEqual(['created_nothing', 'init_answered']);
    const media = publishedMedia(w, account);
    expect(media).toHaveLength(1);
    expect(media[0]!.containerId).toBe(attempts[1]!.publishId);
    expect(media[0]!.containerId).not.toBe(first);
  });

  it('reads the container after the false failure that follows a publish: one post, PUBLISHED', async () => {
    const { platform, account } = await connectInstagram(w);
    await injectFault(w, account, { endpoint: 'media_publish', code: 4, subcode: 2207051, afterSuccess: true });
    const before = republishes();
    const { post } = await imagePost(platform);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    expect(publishedMedia(w, account)).toHaveLength(1);
    expect(republishes()).toBe(before);
    // The media id was never answered: the link is the account's profile.
    expect(done.releaseId).toBeNull();
    expect(done.releaseUrl).toBe(`https://www.instagram.com/${platform.displayHandle}/`);
  });

  it('reads the container after a connection cut once the publish was made: one post, PUBLISHED', async () => {
    const { platform, account } = await connectInstagram(w);
    await injectFault(w, account, { endpoint: 'media_publish', drop: true, afterSuccess: true });
    const before = republishes();
    const { post } = await imagePost(platform);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    expect(publishedMedia(w, account)).toHaveLength(1);
    expect(republishes()).toBe(before);
  });

  it('publishes the stored container of a worker that died before media_publish, once', async () => {
    const { platform, account } = await connectInstagram(w);
    const image = await storeMedia(w, await makeJpeg(900, 900));
    const containerId = await finishedContainer(platform, image);
    const post = await stalledWithContainer(platform, containerId, image);
    await w.t.deps.jobs.enqueue(sweepPostsJob, {});

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const media = publishedMedia(w, account);
    expect(media).toHaveLength(1);
    expect(media[0]!.containerId).toBe(containerId);
    expect(done.releaseId).toBe(media[0]!.id);
    const events = (await attemptsOf(w, post._id))[0]!.events.map((e) => e.what);
    expect(events).toContain('polling_resumed');
  });

  it('never publishes again the container of a worker that died after media_publish left', async () => {
    const { platform, account } = await connectInstagram(w);
    const image = await storeMedia(w, await makeJpeg(900, 900));
    const containerId = await finishedContainer(platform, image);
    // The dead worker's media_publish reached Instagram; its answer was lost with the worker.
    await withInstagramToken(w.t.deps, platform, (token) =>
      w.ig.http.post(`/${platform.providerAccountId}/media_publish`, { creation_id: containerId }, token),
    );
    const before = republishes();
    const post = await stalledWithContainer(platform, containerId, image);
    await w.t.deps.jobs.enqueue(sweepPostsJob, {});

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    expect(publishedMedia(w, account)).toHaveLength(1);
    expect(republishes()).toBe(before);
  });

  it('holds a post whose media_publish Instagram refused for the quota, keeping the container unpublished', async () => {
    const { platform, account } = await connectInstagram(w);
    // The quota read said one was left; another publish took it before ours (9 / 2207042 at media_publish).
    await injectFault(w, account, { endpoint: 'media_publish', code: 9, subcode: 2207042 });
    const { post } = await imagePost(platform);

    const held = await waitFor('the post to be held', async () => {
      const doc = await w.t.deps.db.posts.findOne({ _id: post._id });
      return doc?.state === 'QUEUE' && doc.errorText ? doc : undefined;
    });
    expect(held.errorText).toMatch(/^Held: Instagram allows 50 posts through its API per account in 24 hours/);
    expect(held.dueAt!.getTime()).toBeGreaterThan(Date.now());
    const attempts = await attemptsOf(w, post._id);
    expect(attempts.map((a) => a.phase)).toEqual(['held']);
    expect(w.ig.emulator.control.containers.get(attempts[0]!.publishId!)!.publishedMediaId).toBeNull();
    expect(publishedMedia(w, account)).toHaveLength(0);
  });
});
