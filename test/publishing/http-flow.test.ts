import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeJpeg, upload } from '../support/media.js';
import { call } from '../support/posts.js';
import { buildMp4OfSize } from '../support/video.js';
import {
  connectCreator,
  emulatorPosts,
  PUBLIC_SETTINGS,
  SLOW,
  startWorld,
  waitFor,
  type PublishingWorld,
} from './support.js';

// The whole path through the public API: upload, create or publish a draft, the worker publishes, GET shows it.
let w: PublishingWorld;

beforeAll(async () => {
  w = await startWorld();
}, 240_000);

afterAll(async () => {
  await w.close();
});

/** The post group as GET /posts/{id} shows it once the root reached PUBLISHED or ERROR. */
async function publishedGroup(postId: string): Promise<{ root: Record<string, unknown> }> {
  return waitFor(`post ${postId} to be published`, async () => {
    const { status, body } = await call(w.server, w.tenant.apiKey, 'GET', `/posts/${postId}`);
    expect(status).toBe(200);
    const group = body as unknown as { root: Record<string, unknown> };
    return ['PUBLISHED', 'ERROR'].includes(group.root.state as string) ? group : undefined;
  });
}

async function uploaded(bytes: Buffer, name: string, type: string): Promise<string> {
  const response = await upload(w.server, w.tenant.apiKey, { bytes, name, type });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('publishing through the API', SLOW, () => {
  it('a photo post created with mode now ends PUBLISHED with the id TikTok gave, and its attempt history', async () => {
    const { openId, platform } = await connectCreator(w);
    const mediaId = await uploaded(await makeJpeg(800, 600), 'one.jpg', 'image/jpeg');
    const created = await call(w.server, w.tenant.apiKey, 'POST', '/posts', {
      platformIds: [platform._id],
      content: 'Through the API #postdeck',
      mode: 'now',
      mediaIds: [mediaId],
      settings: PUBLIC_SETTINGS,
    });
    expect(created.status).toBe(201);
    const [result] = created.body.results as { status: string; post: { root: { id: string; state: string } } }[];
    expect(result).toMatchObject({ status: 'created', post: { root: { state: 'QUEUE' } } });

    const group = await publishedGroup(result!.post.root.id);
    const { posts } = await emulatorPosts(w, openId);
    expect(posts).toHaveLength(1);
    expect(group.root).toMatchObject({
      state: 'PUBLISHED',
      releaseId: posts[0]!.postIds[0],
      releaseUrl: `https://www.tiktok.com/@${platform.displayHandle}/photo/${posts[0]!.postIds[0]}`,
      errorText: null,
    });
    expect(group.root.releaseId).toMatch(/^\d{19}$/);
    const attempts = group.root.attempts as { n: number; phase: string; publishId: string }[];
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ n: 1, phase: 'init_answered', publishId: posts[0]!.publishId });
  });

  it('a video draft published with reviewed content goes out once, with the reviewed caption', async () => {
    const { openId, platform } = await connectCreator(w);
    const mediaId = await uploaded(buildMp4OfSize(300_000, { width: 720, height: 1280 }), 'clip.mp4', 'video/mp4');
    const draft = await call(w.server, w.tenant.apiKey, 'POST', '/posts', {
      platformIds: [platform._id],
      content: 'first take',
      mode: 'draft',
      mediaIds: [mediaId],
      settings: PUBLIC_SETTINGS,
    });
    expect(draft.status).toBe(201);
    const [result] = draft.body.results as { post: { root: { id: string; state: string } } }[];
    expect(result!.post.root.state).toBe('DRAFT');
    const postId = result!.post.root.id;
    expect((await emulatorPosts(w, openId)).initRequests[openId] ?? 0).toBe(0);

    const published = await call(w.server, w.tenant.apiKey, 'POST', `/posts/${postId}/publish`, {
      mode: 'now',
      content: 'the reviewed caption #final',
    });
    expect(published.status).toBe(200);
    expect((published.body as { root: { state: string } }).root.state).toBe('QUEUE');

    const group = await publishedGroup(postId);
    expect(group.root).toMatchObject({ state: 'PUBLISHED', content: 'the reviewed caption #final' });
    const seen = await emulatorPosts(w, openId);
    expect(seen.initRequests[openId]).toBe(1);
    expect((seen.posts[0]!.request.post_info as { title: string }).title).toBe('the reviewed caption #final');
    expect(group.root.releaseId).toBe(seen.posts[0]!.postIds[0]);

    const again = await call(w.server, w.tenant.apiKey, 'POST', `/posts/${postId}/publish`, { mode: 'now' });
    expect(again).toMatchObject({ status: 409, body: { code: 'not_a_draft' } });
  });
});
