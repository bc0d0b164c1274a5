import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaDoc } from '../../src/core/media/documents.js';
import { readMediaBytes } from '../../src/core/media/store-bytes.js';
import { INSTAGRAM_FRAMES } from '../../src/core/providers/instagram/frames.js';
import type { SlideFrame } from '../../src/core/providers/port.js';
import { TIKTOK_FRAMES } from '../../src/core/providers/tiktok/frames.js';
import { prepareCaption } from '../../src/core/slides/render/index.js';
import { FREE_AND_CREATOR_PLANS, startAiStack, type AiStack } from '../support/ai.js';
import { CAPTIONS, twoNetworks, type Framed, type Slide } from '../support/two-networks.js';
import { upload } from '../support/media.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { call, DIRECT } from '../support/posts.js';

// Slides drawn per network: TikTok's 1080x1920 and a carousel network's 1080x1350 (Instagram's frame).
let stack: AiStack;
beforeAll(async () => {
  stack = await startAiStack({ plans: FREE_AND_CREATOR_PLANS, instagram: true });
});
afterAll(() => stack.stop());

const GREY = 128;
async function greyImage(apiKey: string, width = 720, height = 1280): Promise<string> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: { r: GREY, g: GREY, b: GREY } } })
    .jpeg({ quality: 95 })
    .toBuffer();
  const uploaded = await upload(stack.server, apiKey, { bytes, name: 'grey.jpg', type: 'image/jpeg' });
  return String(((await uploaded.json()) as { id: string }).id);
}

async function mediaDoc(id: string): Promise<MediaDoc> {
  return (await stack.t.deps.db.media.findOne({ _id: id })) as MediaDoc;
}

/** The stored slide's size and the box of every pixel that differs from the flat grey photo. */
async function inkOf(id: string) {
  const bytes = await readMediaBytes(stack.t.deps, (await mediaDoc(id)).storageKey);
  const { data, info } = await sharp(bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
  const box = { left: info.width, top: info.height, right: -1, bottom: -1 };
  for (let y = 0; y < info.height; y++)
    for (let x = 0; x < info.width; x++)
      if (Math.abs((data[y * info.width + x] as number) - GREY) > 24) {
        box.left = Math.min(box.left, x);
        box.right = Math.max(box.right, x);
        box.top = Math.min(box.top, y);
        box.bottom = Math.max(box.bottom, y);
      }
  const edge = [0, info.height - 1].flatMap((y) => [0, info.width - 1].map((x) => data[y * info.width + x] as number));
  return { width: info.width, height: info.height, box, edge };
}

/** The ink lies inside the frame's safe area, and the corners are the photo (no bar, no letterbox). */
function expectInside(ink: Awaited<ReturnType<typeof inkOf>>, frame: SlideFrame) {
  expect({ width: ink.width, height: ink.height }).toEqual({ width: frame.width, height: frame.height });
  expect(ink.box.right).toBeGreaterThan(0); // some text was drawn
  expect(ink.box.left).toBeGreaterThanOrEqual(frame.safeArea.left);
  expect(ink.box.top).toBeGreaterThanOrEqual(frame.safeArea.top);
  expect(ink.box.right).toBeLessThan(frame.width - frame.safeArea.right);
  expect(ink.box.bottom).toBeLessThan(frame.height - frame.safeArea.bottom);
  for (const corner of ink.edge) expect(Math.abs(corner - GREY)).toBeLessThanOrEqual(8);
}

/** A caption too long for either frame at large: shrunk, with a warning per frame. */
const LONG = 'Longwordsdontoverflow '.repeat(20).trim();

describe('slides framed per network', () => {
  it('composites each slide once per network of platformIds, in its frame, the caption laid out anew inside its safe area', async () => {
    const { tenant, tiktok, carousel } = await twoNetworks(stack);
    const image = await greyImage(tenant.apiKey);
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      platformIds: [tiktok._id, carousel._id],
      slides: CAPTIONS.map((caption, index) => ({ index, mediaId: image, caption, captionSize: 'large' })),
    });
    expect(answer.status).toBe(201);
    const frames = answer.body.frames as Framed[];
    expect(
      frames.map(({ provider, platformIds, width, height }) => ({ provider, platformIds, width, height })),
    ).toEqual([
      { provider: 'tiktok', platformIds: [tiktok._id], width: 1080, height: 1920 },
      { provider: 'instagram', platformIds: [carousel._id], width: 1080, height: 1350 },
    ]);
    // The answer's own slides are the first network's, as a client that reads only them expects.
    expect(answer.body.slides).toEqual(frames[0]?.slides);
    const [tiktokSlides, carouselSlides] = frames.map((each) => each.slides) as [Slide[], Slide[]];
    expect(tiktokSlides.map((slide) => slide.index)).toEqual([0, 1, 2]);
    expect(carouselSlides.map((slide) => slide.index)).toEqual([0, 1, 2]);
    for (const [n, slide] of tiktokSlides.entries()) {
      expect(slide.mediaId).not.toBe(carouselSlides[n]?.mediaId);
      expectInside(await inkOf(slide.mediaId), TIKTOK_FRAMES.slides);
      expectInside(await inkOf(carouselSlides[n]?.mediaId as string), INSTAGRAM_FRAMES.slides);
      expect((await mediaDoc(carouselSlides[n]?.mediaId as string)).thumbnailMetadata).toEqual({
        width: 1080,
        height: 1350,
      });
    }
    // Both frames are shown at the phone's width, so a caption is asked for at the same size in each.
    const caption = {
      caption: CAPTIONS[0] as string,
      textStyleId: 'primary-sans',
      captionSize: 'large',
      textEffect: 'outline',
      role: 'hook',
    } as const;
    const [tall, carouselSized] = await Promise.all([
      prepareCaption(caption, TIKTOK_FRAMES.slides),
      prepareCaption(caption, INSTAGRAM_FRAMES.slides),
    ]);
    expect(carouselSized.requestedPx).toBe(tall.requestedPx);
  });

  it("answers the frames over MCP too, as the tool's output schema says", async () => {
    const { tenant, tiktok, carousel } = await twoNetworks(stack);
    const image = await greyImage(tenant.apiKey);
    const client = await connectMcpOverHttp(stack.server.url, tenant.apiKey);
    try {
      const result = await client.callTool({
        name: 'composite_slides',
        arguments: {
          platformIds: [carousel._id, tiktok._id],
          slides: [{ index: 0, mediaId: image, caption: 'A hook' }],
        },
      });
      expect(result.isError).toBeFalsy();
      const content = result.structuredContent as { slides: Slide[]; frames: Framed[] };
      // The first platform's network comes first, and its slides are the answer's own.
      expect(content.frames.map((each) => [each.provider, each.width, each.height])).toEqual([
        ['instagram', 1080, 1350],
        ['tiktok', 1080, 1920],
      ]);
      expect(content.slides).toEqual(content.frames[0]?.slides);
    } finally {
      await client.close();
    }
  });

  it('keeps the answer it gave before without platformIds: slides in the image shape, no frames', async () => {
    const { tenant } = await twoNetworks(stack);
    const image = await greyImage(tenant.apiKey, 1080, 1350);
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      slides: [{ index: 0, mediaId: image, caption: 'A hook' }],
    });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body).sort()).toEqual(['slides', 'warnings']);
    const [slide] = answer.body.slides as Slide[];
    expect((await mediaDoc(String(slide?.mediaId))).thumbnailMetadata).toEqual({ width: 1080, height: 1350 });
  });

  it("refuses platformIds that are not ids (invalid_request), another workspace's (not_found), and no key or a bad key", async () => {
    const { tenant, tiktok } = await twoNetworks(stack);
    const other = await twoNetworks(stack);
    const image = await greyImage(tenant.apiKey);
    const slides = [{ index: 0, mediaId: image, caption: 'A hook' }];
    const malformed = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      platformIds: ['nope'],
      slides,
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('invalid_request');
    expect(malformed.body.details?.map((detail) => detail.path)).toEqual([['body', 'platformIds', 0]]);
    const twice = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      platformIds: [tiktok._id, tiktok._id],
      slides,
    });
    expect(twice.status).toBe(400);
    const foreign = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      platformIds: [tiktok._id, other.carousel._id],
      slides,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
    const body = { platformIds: [tiktok._id], slides };
    expect((await call(stack.server, undefined, 'POST', '/slides/composite', body)).body.code).toBe('missing_api_key');
    expect((await call(stack.server, 'pd_wrong', 'POST', '/slides/composite', body)).body.code).toBe('invalid_api_key');
    // Nothing was stored for the refused requests: only the uploaded image is in the library.
    expect(await stack.t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);
  });

  it('generates each image once and frames it per network: one post group per platform, each with its own slides', async () => {
    const { tenant, tiktok, carousel } = await twoNetworks(stack);
    const accepted = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [tiktok._id, carousel._id],
      slides: [...CAPTIONS, LONG].map((caption, index) => ({
        index,
        caption,
        imagePrompt: `a calm morning desk, scene ${index}`,
      })),
      captionSize: 'large',
      mode: 'draft',
      settings: DIRECT,
    });
    expect(accepted.status).toBe(202);
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 600 && job.status !== 'DONE' && job.status !== 'FAILED'; i++) {
      if (i > 0) await sleep(100);
      job = (await call(stack.server, tenant.apiKey, 'GET', `/slides/generate/${String(accepted.body.jobId)}`)).body;
    }
    expect(job).toMatchObject({ status: 'DONE', error: null });
    const groupIds = job.postGroupIds as string[];
    expect(groupIds).toHaveLength(2);
    const posts = await Promise.all(groupIds.map((groupId) => stack.t.deps.db.posts.findOne({ groupId })));
    expect(posts.map((post) => post?.platformId)).toEqual([tiktok._id, carousel._id]);
    const sizes = async (ids: string[]) => Promise.all(ids.map(async (id) => (await mediaDoc(id)).thumbnailMetadata));
    expect(await sizes(posts[0]?.mediaIds ?? [])).toEqual(Array(4).fill({ width: 1080, height: 1920 }));
    expect(await sizes(posts[1]?.mediaIds ?? [])).toEqual(Array(4).fill({ width: 1080, height: 1350 }));
    // The long caption was shrunk in each frame, and the job says so for each network.
    const warnings = job.warnings as { index: number; code: string; provider?: string }[];
    expect(warnings.every((warning) => warning.provider === 'tiktok' || warning.provider === 'instagram')).toBe(true);
    const last = warnings.filter((warning) => warning.index === 3);
    expect(last.map(({ index, code, provider }) => ({ index, code, provider }))).toEqual([
      { index: 3, code: 'text_shrunk', provider: 'tiktok' },
      { index: 3, code: 'text_shrunk', provider: 'instagram' },
    ]);
    // One image per slide was generated and paid for, not one per network.
    const generated = await stack.t.deps.db.media.countDocuments({
      workspaceId: tenant.workspaceId,
      source: 'generated',
    });
    expect(generated).toBe(4);
    const usage = (await call(stack.server, tenant.apiKey, 'GET', '/usage')).body as Record<string, { used: number }>;
    expect(usage.imageCredits?.used).toBe(4);
  });
});
