import { mkdir, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSlide } from '../../src/core/slides/render/index.js';
import { creatorTenant, FREE_AND_CREATOR_PLANS, startAiStack, type AiStack } from '../support/ai.js';
import { buildTenant } from '../support/factories.js';
import { pathOf, upload } from '../support/media.js';
import { call, DIRECT } from '../support/posts.js';

// The media that composite and generation make, and the PNGs they start from. The image model is
// named as an Azure deployment would be: Postdeck cannot tell it is a GPT image model, so it asks
// for no output format and gets OpenAI's default, PNG.
let stack: AiStack;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await startAiStack({ plans: FREE_AND_CREATOR_PLANS, ai: { imageModel: 'slides-image-deployment' } });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await stack.stop();
});

type Slide = { index: number; mediaId: string; publicUrl: string; previewUrl: string };

/** A 720x1280 PNG: a blue sky over green ground, with a transparent band across the middle. */
async function photoPng(): Promise<Buffer> {
  const band = (rgba: string, height: number) =>
    sharp({ create: { width: 720, height, channels: 4, background: rgba } })
      .png()
      .toBuffer();
  const [sky, ground] = await Promise.all([band('#3a7bd5ff', 520), band('#2e8b57ff', 520)]);
  return sharp({ create: { width: 720, height: 1280, channels: 4, background: '#00000000' } })
    .composite([
      { input: sky, left: 0, top: 0 },
      { input: ground, left: 0, top: 760 },
    ])
    .png()
    .toBuffer();
}

async function fetched(url: string): Promise<{ type: string | null; bytes: Buffer }> {
  const response = await stack.server.request(pathOf(url));
  expect(response.status).toBe(200);
  return { type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The slide's public and preview URLs serve its JPEG and a WebP preview, and agree with its media object. */
async function expectLookable(apiKey: string, slide: Slide): Promise<Buffer> {
  const original = await fetched(slide.publicUrl);
  expect(original.type).toBe('image/jpeg');
  expect(await sharp(original.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 1080, height: 1920 });
  const preview = await fetched(slide.previewUrl);
  expect(preview.type).toBe('image/webp');
  const media = await call(stack.server, apiKey, 'GET', `/media/${slide.mediaId}`);
  expect(media.body).toMatchObject({ publicUrl: slide.publicUrl, previewUrl: slide.previewUrl, source: 'composite' });
  return original.bytes;
}

async function uploadPng(apiKey: string): Promise<string> {
  const response = await upload(stack.server, apiKey, { bytes: await photoPng(), name: 'photo.png' });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** The grey level of a pixel of a JPEG (its average over the three channels). */
async function greyAt(jpeg: Buffer, x: number, y: number): Promise<number> {
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return ((data[at] as number) + (data[at + 1] as number) + (data[at + 2] as number)) / 3;
}

describe('composite_slides', () => {
  it("answers each new slide's publicUrl and previewUrl over REST, from a PNG upload", async () => {
    const tenant = await buildTenant(stack.t.deps);
    const mediaId = await uploadPng(tenant.apiKey);
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      slides: [
        { index: 1, mediaId, caption: 'Then the second one' },
        { index: 0, mediaId, caption: 'A hook on a PNG' },
      ],
    });
    expect(answer.status).toBe(201);
    const slides = answer.body.slides as Slide[];
    expect(slides.map((slide) => slide.index)).toEqual([0, 1]);
    const jpeg = await expectLookable(tenant.apiKey, slides[0] as Slide);
    await expectLookable(tenant.apiKey, slides[1] as Slide);
    // The PNG's transparent band is white on the slide, as it is in the stored copy (x 40: left of the caption).
    expect(await greyAt(jpeg, 40, 960)).toBeGreaterThan(240);
    await mkdir('test-artifacts', { recursive: true });
    await writeFile('test-artifacts/composite-from-png.jpg', jpeg);
  });

  it('answers the URLs over MCP too, as its listed output schema says', async () => {
    const tenant = await buildTenant(stack.t.deps);
    const mediaId = await uploadPng(tenant.apiKey);
    const client = new Client({ name: 'postdeck-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tenant.apiKey}` } },
      }),
    );
    clients.push(client);
    const { tools } = await client.listTools(); // the client checks the result against this schema
    const output = tools.find((tool) => tool.name === 'composite_slides')?.outputSchema as unknown as {
      properties: { slides: { items: { required: string[] } } };
    };
    expect(output.properties.slides.items.required).toEqual(
      expect.arrayContaining(['index', 'mediaId', 'publicUrl', 'previewUrl']),
    );
    const result = await client.callTool({
      name: 'composite_slides',
      arguments: { slides: [{ index: 0, mediaId, caption: 'Over MCP' }] },
    });
    expect(result.isError).toBeFalsy();
    const [slide] = (result.structuredContent as { slides: Slide[] }).slides;
    await expectLookable(tenant.apiKey, slide as Slide);
  });
});

describe('PNG images drawn on', () => {
  it('puts transparency on white, as a stored PNG upload has it', async () => {
    const rendered = await renderSlide({
      image: await photoPng(),
      caption: 'Transparent middle',
      textStyleId: 'primary-sans',
      captionSize: 'small',
      textEffect: 'outline',
      role: 'body',
    });
    expect(await greyAt(rendered.jpeg, 40, 960)).toBeGreaterThan(240);
    expect(await greyAt(rendered.jpeg, 40, 100)).toBeLessThan(200);
  });

  it('generates a slideshow from a model that answers PNG: raw images stored as JPEG saying so, slides posted', async () => {
    const { tenant, platform } = await creatorTenant(stack);
    const accepted = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      slides: [0, 1].map((index) => ({
        index,
        caption: `Slide ${index}`,
        imagePrompt: `a quiet harbour, view ${index}`,
      })),
      mode: 'draft',
      settings: DIRECT,
    });
    expect(accepted.status).toBe(202);
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 600 && job.status !== 'DONE' && job.status !== 'FAILED'; i++) {
      if (i > 0) await sleep(100);
      job = (await call(stack.server, tenant.apiKey, 'GET', `/slides/generate/${String(accepted.body.jobId)}`)).body;
    }
    expect(job).toMatchObject({ status: 'DONE', completed: 2, error: null });
    const images = stack.openai.control
      .requests()
      .filter((r) => r.endpoint === 'images' && r.prompt.includes('harbour'));
    expect(images).toHaveLength(2);

    const doc = await stack.t.deps.db.generationJobs.findOne({ _id: String(accepted.body.jobId) });
    const generated = await stack.t.deps.db.media
      .find({ _id: { $in: doc?.slides.map((slide) => slide.generatedMediaId as string) ?? [] } })
      .toArray();
    expect(generated).toHaveLength(2);
    for (const media of generated) {
      expect(media).toMatchObject({ source: 'generated', mimeType: 'image/jpeg', convertedFrom: 'image/png' });
      const listed = await call(stack.server, tenant.apiKey, 'GET', `/media/${media._id}`);
      expect(listed.body).toMatchObject({ mimeType: 'image/jpeg', convertedFrom: 'image/png' });
      expect(await sharp((await fetched(String(listed.body.publicUrl))).bytes).metadata()).toMatchObject({
        format: 'jpeg',
        width: 1024,
        height: 1536,
      });
    }
    const post = await stack.t.deps.db.posts.findOne({ groupId: String(job.postGroupId) });
    expect(post?.mediaIds).toEqual(doc?.slides.map((slide) => slide.compositeMediaId));
  }, 60_000);
});
