import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_AND_CREATOR_PLANS, startAiStack, type AiStack } from '../support/ai.js';
import { buildTenant } from '../support/factories.js';
import { makeJpeg, upload } from '../support/media.js';
import { call, connectedTenant, detailPaths, DIRECT } from '../support/posts.js';

let stack: AiStack;
beforeAll(async () => {
  stack = await startAiStack({
    plans: FREE_AND_CREATOR_PLANS,
  });
});
afterAll(() => stack.stop());

type Job = {
  id: string;
  status: string;
  stage: string;
  total: number;
  completed: number;
  postId: string | null;
  postIds: string[];
  postGroupId: string | null;
  error: string | null;
  errorCode: string | null;
  failedSlideIndex: number | null;
};

async function creatorTenant() {
  const { tenant, platform } = await connectedTenant(stack.t, stack.f);
  await stack.t.db.collection('accounts').updateOne({ _id: tenant.accountId as never }, { $set: { plan: 'creator' } });
  return { tenant, platform };
}

/** Polls the job until DONE or FAILED, checking that progress never goes back. */
async function finish(apiKey: string, jobId: string): Promise<{ job: Job; seen: Job[] }> {
  const seen: Job[] = [];
  for (let i = 0; i < 300; i++) {
    const job = (await call(stack.server, apiKey, 'GET', `/slides/generate/${jobId}`)).body as unknown as Job;
    seen.push(job);
    if (job.status === 'DONE' || job.status === 'FAILED') return { job, seen };
    await sleep(100);
  }
  throw new Error('the job did not finish');
}

const usage = async (apiKey: string) =>
  (await call(stack.server, apiKey, 'GET', '/usage')).body as Record<string, { used: number }>;

describe('slideshow generation', () => {
  it('runs a 6-slide topic job to DONE with growing progress, a draft of the composited slides in order, 1 caption and 6 image credits', async () => {
    const { tenant, platform } = await creatorTenant();
    const accepted = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      topic: 'cold brew coffee',
      mode: 'draft',
      settings: DIRECT,
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'WAITING', total: 6 });
    const { job, seen } = await finish(tenant.apiKey, String(accepted.body.jobId));
    expect(job).toMatchObject({ status: 'DONE', stage: 'done', total: 6, completed: 6, error: null });
    const completed = seen.map((each) => each.completed);
    expect(completed).toEqual([...completed].sort((a, b) => a - b));
    const post = await stack.t.deps.db.posts.findOne({ groupId: String(job.postGroupId) });
    expect(post?.state).toBe('DRAFT');
    // The job names its root post, and GET /posts/{id} opens both that id and the group id.
    expect(job).toMatchObject({ postId: post?._id, postIds: [post?._id], postGroupIds: [job.postGroupId] });
    for (const id of [job.postId, job.postGroupId]) {
      const opened = await call(stack.server, tenant.apiKey, 'GET', `/posts/${id}`);
      expect(opened.status, String(id)).toBe(200);
      expect(opened.body).toMatchObject({ root: { id: post?._id, groupId: job.postGroupId, state: 'DRAFT' } });
    }
    const media = await stack.t.deps.db.media.find({ _id: { $in: post?.mediaIds ?? [] } }).toArray();
    expect(media.every((each) => each.source === 'composite')).toBe(true);
    expect(post?.mediaIds).toHaveLength(6);
    const doc = await stack.t.deps.db.generationJobs.findOne({ _id: job.id });
    expect(post?.mediaIds).toEqual(doc?.slides.map((slide) => slide.compositeMediaId));
    // Each composite keeps the caption it was drawn with: slide 0's is the hook insights rank.
    const hook = media.find((each) => each._id === post?.mediaIds[0]);
    expect(hook?.caption).toEqual({
      index: 0,
      text: doc?.slides[0]?.caption,
      textStyleId: doc?.request.textStyleId,
      language: doc?.request.language,
    });
    const used = await usage(tenant.apiKey);
    expect(used.captionCredits?.used).toBe(1);
    expect(used.imageCredits?.used).toBe(6);
    expect(
      stack.openai.control.requests().filter((r) => r.endpoint === 'images' && r.prompt.includes('cold brew')).length,
    ).toBe(6);
  }, 60_000);

  it('ends FAILED on an injected image failure: no post, the failing slide named, unfinished slides not charged', async () => {
    const { tenant, platform } = await creatorTenant();
    stack.openai.control.faults.add({
      endpoint: 'images',
      kind: 'moderation_blocked',
      times: 1,
      match: 'cosy desk',
      retryAfterSeconds: 1,
    });
    const accepted = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      slides: Array.from({ length: 5 }, (_, index) => ({
        index,
        caption: `Slide ${index}`,
        imagePrompt: index === 3 ? 'a cosy desk at night' : `a calm lake, number ${index}`,
      })),
      mode: 'draft',
      settings: DIRECT,
    });
    const { job } = await finish(tenant.apiKey, String(accepted.body.jobId));
    expect(job).toMatchObject({
      status: 'FAILED',
      errorCode: 'content_blocked',
      failedSlideIndex: 3,
      postId: null,
      postIds: [],
      postGroupId: null,
    });
    expect(job.error).toMatch(/Slide 3 failed: .*safety system/);
    const used = await usage(tenant.apiKey);
    expect(used.captionCredits?.used).toBe(0);
    expect(used.imageCredits?.used).toBe(job.completed);
    expect(job.completed).toBeLessThan(5);
    expect(await stack.t.deps.db.posts.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
  }, 60_000);

  it('answers 402 ai_image_limit_reached on the free plan without spending a caption credit', async () => {
    const { tenant, platform } = await connectedTenant(stack.t, stack.f);
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      topic: 'x',
      mode: 'draft',
      settings: DIRECT,
    });
    expect(answer.status).toBe(402);
    expect(answer.body.code).toBe('ai_image_limit_reached');
    expect((await usage(tenant.apiKey)).captionCredits?.used).toBe(0);
  });

  it.each([
    [{ mode: 'draft' }, ['body', 'topic']],
    [{ topic: 't', slides: [{ index: 0, caption: 'c', imagePrompt: 'p' }], mode: 'draft' }, ['body', 'slides']],
    [{ slides: [{ index: 0, caption: 'c', imagePrompt: 'p' }], slideCount: 4, mode: 'draft' }, ['body', 'slideCount']],
    [{ topic: 't', mode: 'schedule' }, ['body', 'scheduledFor']],
    [{ topic: 't', mode: 'later' }, ['body', 'mode']],
    [{ topic: 't', mode: 'draft', textStyleId: 'comic-sans' }, ['body', 'textStyleId']],
    [{ topic: 't', mode: 'draft', slideCount: 11 }, ['body', 'slideCount']],
  ])('refuses %j with invalid_request', async (body, path) => {
    const { tenant, platform } = await creatorTenant();
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      ...body,
    });
    expect(answer.status).toBe(400);
    expect(detailPaths(answer.body)).toContainEqual(path);
  });

  it("answers not_found for another workspace's job and platform, and both auth errors", async () => {
    const { tenant, platform } = await creatorTenant();
    const other = await buildTenant(stack.t.deps, { plan: 'creator' });
    const accepted = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      topic: 'mine',
      mode: 'draft',
      settings: DIRECT,
    });
    expect(
      (await call(stack.server, other.apiKey, 'GET', `/slides/generate/${String(accepted.body.jobId)}`)).body.code,
    ).toBe('not_found');
    expect(
      (
        await call(stack.server, other.apiKey, 'POST', '/slides/generate', {
          platformIds: [platform._id],
          topic: 'x',
          mode: 'draft',
        })
      ).body.code,
    ).toBe('not_found');
    expect(
      (await call(stack.server, undefined, 'GET', `/slides/generate/${String(accepted.body.jobId)}`)).body.code,
    ).toBe('missing_api_key');
    expect((await call(stack.server, `service_sk_${'b'.repeat(43)}`, 'POST', '/slides/generate', {})).body.code).toBe(
      'invalid_api_key',
    );
    await finish(tenant.apiKey, String(accepted.body.jobId));
  }, 60_000);
});

describe('POST /public/v1/slides/composite', () => {
  it('leaves out a character no bundled font draws and names it in an unsupported_character warning', async () => {
    const tenant = await buildTenant(stack.t.deps);
    const response = await upload(stack.server, tenant.apiKey, {
      bytes: await makeJpeg(1024, 1536),
      name: 'p.jpg',
      type: 'image/jpeg',
    });
    const mediaId = String(((await response.json()) as { id: string }).id);
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      slides: [
        { index: 0, mediaId, caption: 'Sleep better tonight 😴✨ 🌙' },
        { index: 1, mediaId, caption: 'Private \uE000 and unassigned \u{10FFFD} characters' },
      ],
    });
    expect(answer.status).toBe(201);
    expect(answer.body.warnings).toEqual([
      {
        index: 1,
        code: 'unsupported_character',
        message: expect.stringMatching(/U\+E000.*U\+10FFFD/),
        characters: ['U+E000', 'U+10FFFD'],
      },
    ]);
    // The REST schema states it, for composite and for generation jobs alike.
    const doc = (await (await stack.server.request('/public/v1/openapi.json')).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { items: { properties: object } }> }> };
    };
    for (const name of ['CompositeResult', 'GenerationJob'])
      expect(doc.components.schemas[name]?.properties.warnings?.items.properties).toHaveProperty('characters');
  });

  it('bakes captions onto the images as new composite media in index order, with a warning where text was shrunk', async () => {
    const tenant = await buildTenant(stack.t.deps);
    const ids: string[] = [];
    for (const [width, height] of [
      [1024, 1536],
      [1536, 1024],
    ] as const) {
      const response = await upload(stack.server, tenant.apiKey, {
        bytes: await makeJpeg(width, height),
        name: 'p.jpg',
        type: 'image/jpeg',
      });
      ids.push(String(((await response.json()) as { id: string }).id));
    }
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      slides: [
        { index: 1, mediaId: ids[1], caption: 'word '.repeat(99).trim(), captionSize: 'large' },
        { index: 0, mediaId: ids[0], caption: 'The hook', textStyleId: 'anton', textEffect: 'box' },
      ],
    });
    expect(answer.status).toBe(201);
    const slides = answer.body.slides as { index: number; mediaId: string }[];
    expect(slides.map((slide) => slide.index)).toEqual([0, 1]);
    expect(answer.body.warnings).toEqual([expect.objectContaining({ index: 1, code: 'text_shrunk' })]);
    const first = await stack.t.deps.db.media.findOne({ _id: slides[0]?.mediaId });
    expect(first).toMatchObject({
      source: 'composite',
      mimeType: 'image/jpeg',
      thumbnailMetadata: { width: 1080, height: 1920 },
    });
    const second = await stack.t.deps.db.media.findOne({ _id: slides[1]?.mediaId });
    expect(second?.thumbnailMetadata).toEqual({ width: 1080, height: 1350 });
    const bytes = await stack.t.deps.media.store.get(String(first?.storageKey));
    const chunks: Buffer[] = [];
    for await (const chunk of bytes) chunks.push(chunk as Buffer);
    expect(await sharp(Buffer.concat(chunks)).metadata()).toMatchObject({ format: 'jpeg', width: 1080, height: 1920 });
  });

  it("answers not_found for another workspace's media and invalid_request for bad slides", async () => {
    const tenant = await buildTenant(stack.t.deps);
    const other = await buildTenant(stack.t.deps);
    const response = await upload(stack.server, other.apiKey, {
      bytes: await makeJpeg(),
      name: 'p.jpg',
      type: 'image/jpeg',
    });
    const theirs = String(((await response.json()) as { id: string }).id);
    expect(
      (
        await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
          slides: [{ index: 0, mediaId: theirs, caption: 'x' }],
        })
      ).body.code,
    ).toBe('not_found');
    const bad = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      slides: [
        { index: 0, mediaId: theirs, caption: '' },
        { index: 0, mediaId: 'nope', caption: 'x'.repeat(501), captionSize: 'huge' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(detailPaths(bad.body)).toEqual(
      expect.arrayContaining([
        ['body', 'slides', 0, 'caption'],
        ['body', 'slides', 1, 'mediaId'],
        ['body', 'slides', 1, 'caption'],
        ['body', 'slides', 1, 'captionSize'],
      ]),
    );
    expect((await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', { slides: [] })).status).toBe(400);
    expect((await call(stack.server, undefined, 'POST', '/slides/composite', { slides: [] })).body.code).toBe(
      'missing_api_key',
    );
  });
});
