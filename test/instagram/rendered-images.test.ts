import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { readMediaBytes } from '../../src/core/media/store-bytes.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { connectedInstagram, startInstagramFixture, type InstagramFixture } from '../support/instagram.js';
import { makeJpeg, makeWebp, upload } from '../support/media.js';
import { call, connectedTenant, DIRECT, type Tenant } from '../support/posts.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

// Images Postdeck renders for Instagram at POST /posts: a WebP or PNG as a JPEG, and an image outside 4:5 to
// 1.91:1 fitted when settings.fit asks (padded or cropped). The post is stored with the rendered image.

const ARTIFACTS = path.resolve('test-artifacts/instagram-rendered');

let tiktok: TikTokFixture;
let ig: InstagramFixture;
let t: TestDatabase;
let server: TestServer;
let tenant: Tenant;
let tok: PlatformDoc;
let gram: PlatformDoc;

beforeAll(async () => {
  tiktok = await startTikTokFixture();
  ig = await startInstagramFixture();
  t = await openTestDatabase({ tiktok: tiktok.config, instagram: ig.config });
  server = await startTestServer(t);
  ({ tenant, platform: tok } = await connectedTenant(t, tiktok));
  ({ platform: gram } = await connectedInstagram(t, ig, tenant));
});
afterAll(async () => {
  await server.stop();
  await t.close();
  await tiktok.emulator.stop();
  await ig.close();
});

async function uploaded(bytes: Buffer, name: string): Promise<string> {
  const answer = await upload(server, tenant.apiKey, { bytes, name });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { id: string }).id;
}

/** A 1080x1920 JPEG: red top third, green middle, blue bottom third. */
async function tallSlide(): Promise<Buffer> {
  const band = (colour: string) =>
    sharp({ create: { width: 1080, height: 640, channels: 3, background: colour } })
      .png()
      .toBuffer();
  return sharp({ create: { width: 1080, height: 1920, channels: 3, background: '#00c000' } })
    .composite([
      { input: await band('#e00000'), left: 0, top: 0 },
      { input: await band('#0000e0'), left: 0, top: 1280 },
    ])
    .jpeg({ quality: 95 })
    .toBuffer();
}

function create(body: Record<string, unknown>) {
  return call(server, tenant.apiKey, 'POST', '/posts', { content: 'Slides #cats', mode: 'draft', ...body });
}

type Results = { platformId: string; status: string; post?: { root: { id: string } } }[];

/** The stored post of each platform in a 201 answer: its media ids. */
async function storedMedia(answer: Awaited<ReturnType<typeof create>>): Promise<Map<string, string[]>> {
  expect(answer.status).toBe(201);
  const stored = new Map<string, string[]>();
  for (const result of answer.body.results as Results) {
    const post = await t.deps.db.posts.findOne({ _id: result.post!.root.id });
    stored.set(result.platformId, post!.mediaIds);
  }
  return stored;
}

/** The rendered image's pixels; its bytes are saved under test-artifacts/instagram-rendered/ to be looked at. */
async function imageOf(mediaId: string, artifact?: string) {
  const doc = (await t.deps.db.media.findOne({ _id: mediaId }))!;
  const bytes = await readMediaBytes(t.deps, doc.storageKey);
  if (artifact) {
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(path.join(ARTIFACTS, `${artifact}.jpg`), bytes);
  }
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
  const meta = await sharp(bytes).metadata();
  return { doc, format: meta.format, width: info.width, height: info.height, at };
}

const near = (actual: number[], expected: number[]) => actual.every((v, i) => Math.abs(v - expected[i]!) <= 30);

describe('images rendered for Instagram at POST /posts', () => {
  it('refuses a 9:16 image without a fit, naming the ratios and the setting that fits it', async () => {
    const tall = await uploaded(await tallSlide(), 'tall.jpg');
    const answer = await create({ platformIds: [gram._id], mediaIds: [tall] });
    expect(answer.status).toBe(400);
    expect(answer.body.details).toEqual([
      {
        path: ['body', 'mediaIds', 0],
        message: expect.stringMatching(/from 4:5 \(0\.8\) to 1\.91:1 .*1080x1920.*settings\.fit/),
      },
    ]);
  });

  it('pads a 9:16 image to 4:5 for Instagram on a blurred copy, while TikTok keeps the original, in one request', async () => {
    const tall = await uploaded(await tallSlide(), 'tall.jpg');
    const stored = await storedMedia(
      await create({
        platformIds: [tok._id, gram._id],
        mediaIds: [tall],
        settings: { ...DIRECT, fit: { mode: 'pad', background: 'blur' } },
      }),
    );
    expect(stored.get(tok._id)).toEqual([tall]);
    const [padded] = stored.get(gram._id)!;
    expect(padded).not.toBe(tall);
    const image = await imageOf(padded!, 'pad-blur');
    // Every pixel kept: 1536x1920 at 4:5, scaled to Instagram's 1440 px width.
    expect({ format: image.format, width: image.width, height: image.height }).toEqual({
      format: 'jpeg',
      width: 1440,
      height: 1800,
    });
    expect(image.doc.fittedFrom).toMatchObject({ mediaId: tall, fit: { mode: 'pad', background: 'blur' } });
    // The whole slide in the middle: red at its top, blue at its bottom; beside it a darkened, blurred green.
    expect(near(image.at(720, 20), [224, 0, 0])).toBe(true);
    expect(near(image.at(720, 1780), [0, 0, 224])).toBe(true);
    const [r, g, b] = image.at(10, 900) as [number, number, number];
    expect(g).toBeGreaterThan(r + 40);
    expect(g).toBeGreaterThan(b + 40);
    expect(g).toBeLessThan(160);
    // The TikTok setting stayed TikTok's, and fit stayed Instagram's.
    const tokPost = await t.deps.db.posts.findOne({ platformId: tok._id, mediaIds: [tall] });
    expect(tokPost?.settings).not.toHaveProperty('fit');
  });

  it('crops a 9:16 image to its centre at 4:5, and a colour pad keeps every pixel on the colour', async () => {
    const tall = await uploaded(await tallSlide(), 'tall.jpg');
    const cropped = await storedMedia(
      await create({ platformIds: [gram._id], mediaIds: [tall], settings: { fit: { mode: 'crop' } } }),
    );
    const crop = await imageOf(cropped.get(gram._id)![0]!, 'crop');
    expect([crop.width, crop.height]).toEqual([1080, 1350]);
    // The centre 1350 rows of 1920: 285 rows of red at the top, then green.
    expect(near(crop.at(540, 10), [224, 0, 0])).toBe(true);
    expect(near(crop.at(540, 675), [0, 192, 0])).toBe(true);

    const padded = await storedMedia(
      await create({
        platformIds: [gram._id],
        mediaIds: [tall],
        settings: { fit: { mode: 'pad', background: '#ffff00' } },
      }),
    );
    const pad = await imageOf(padded.get(gram._id)![0]!, 'pad-colour');
    expect([pad.width, pad.height]).toEqual([1440, 1800]);
    expect(near(pad.at(5, 900), [255, 255, 0])).toBe(true);
  });

  it('renders a WebP as a JPEG of the same size, once for every post of it', async () => {
    const webp = await uploaded(await makeWebp(1080, 1080), 'square.webp');
    expect((await t.deps.db.media.findOne({ _id: webp }))?.mimeType).toBe('image/webp');
    const first = await storedMedia(await create({ platformIds: [gram._id], mediaIds: [webp] }));
    const second = await storedMedia(await create({ platformIds: [gram._id], mediaIds: [webp] }));
    const [jpeg] = first.get(gram._id)!;
    expect(jpeg).not.toBe(webp);
    expect(second.get(gram._id)).toEqual([jpeg]);
    const image = await imageOf(jpeg!);
    expect([image.format, image.width, image.height, image.doc.mimeType]).toEqual(['jpeg', 1080, 1080, 'image/jpeg']);
    // A JPEG within the limits is sent as it is.
    const plain = await uploaded(await makeJpeg(1080, 1080), 'plain.jpg');
    expect((await storedMedia(await create({ platformIds: [gram._id], mediaIds: [plain] }))).get(gram._id)).toEqual([
      plain,
    ]);
  });

  it('refuses a malformed fit, a fit for TikTok alone, and an image too narrow even once rendered', async () => {
    const tall = await uploaded(await tallSlide(), 'tall.jpg');
    const malformed = await create({
      platformIds: [gram._id],
      mediaIds: [tall],
      settings: { fit: { mode: 'pad', background: 'purple' } },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.details).toContainEqual({
      path: ['body', 'settings', 'fit', 'background'],
      message: 'a pad needs a background: "blur" or a colour "#RRGGBB"',
    });
    const tiktokOnly = await create({
      platformIds: [tok._id],
      mediaIds: [tall],
      settings: { ...DIRECT, fit: { mode: 'crop' } },
    });
    expect(tiktokOnly.status).toBe(400);
    expect(tiktokOnly.body.details?.map((d) => d.path)).toEqual([['body', 'settings', 'fit']]);
    const narrow = await uploaded(await makeWebp(200, 240), 'narrow.webp');
    const tooNarrow = await create({ platformIds: [gram._id], mediaIds: [narrow] });
    expect(tooNarrow.status).toBe(400);
    expect(tooNarrow.body.details).toEqual([
      { path: ['body', 'mediaIds', 0], message: expect.stringContaining('at least 320 px wide') },
    ]);
    // Nothing was rendered for the refused requests.
    expect(await t.deps.db.media.countDocuments({ 'fittedFrom.mediaId': { $in: [tall, narrow] } })).toBe(0);
  });
});
