import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/core/context.js';
import type { IssueDetail } from '../../src/core/errors.js';
import { fitToAspect } from '../../src/core/media/fit-aspect.js';
import { readMediaBytes, storeMediaBytes } from '../../src/core/media/store-bytes.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { PostMedia } from '../../src/core/providers/port.js';
import { Harness, graphErrorOf, jpeg } from '../instagram-emulator/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import { buildMp4 } from '../support/video.js';

// Each Instagram rule Postdeck checks before accepting a post, against the emulator's own answer for the same
// media, caption and settings: what Postdeck accepts the emulator accepts, and each refusal the emulator refuses.

let h: Harness;
let t: TestDatabase;
let platform: PlatformDoc;
let scope: Scope;
let account: { id: string; userId: string; token: string };
let served = 0;

beforeAll(async () => {
  h = await Harness.start();
  t = await openTestDatabase();
  const tenant = await buildTenant(t.deps);
  scope = { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' } };
  platform = await buildPlatform(t.deps, tenant.workspaceId, {
    provider: 'instagram',
    capabilities: ['image', 'carousel', 'reel'],
  });
  account = await h.connect();
});
afterAll(async () => {
  await t.close();
  await h.close();
});

type Verdict = 'accepted' | 'refused';

/** A served file and the facts Postdeck's stored media would hold of it. */
interface Item {
  url: string;
  media: PostMedia;
}

function serve(bytes: Buffer, fields: Omit<PostMedia, 'id' | 'size' | 'status'>): Item {
  served += 1;
  const url = h.media.serve(`/file-${served}`, bytes);
  return { url, media: { id: `m${served}`, size: bytes.length, status: 'READY', ...fields } };
}

async function image(width: number, height: number): Promise<Item> {
  return serve(await jpeg(width, height), { mediaType: 'image', mimeType: 'image/jpeg', width, height });
}

function video(durationSec: number, width = 1080, height = 1920): Item {
  const bytes = buildMp4({ durationSec, width, height });
  return serve(bytes, { mediaType: 'video', mimeType: 'video/mp4', width, height, durationSec });
}

async function postdeck(items: Item[], content = '', settings: Record<string, unknown> = {}): Promise<IssueDetail[]> {
  const media = items.map((i) => i.media);
  const loaded = { media, docs: [], indexes: media.map((_, i) => i), issues: [] };
  const provider = t.deps.providers.of(platform);
  const { issues } = await provider.rules.checkPost(
    t.deps,
    platform,
    { content, settings, threadReplies: [] },
    loaded,
    'request',
  );
  return issues;
}

/** A container created as Postdeck's client sends it: form body, token in the Authorization header. */
function create(params: Record<string, string>): Promise<Response> {
  return fetch(`${h.emulator.url}/v25.0/${account.userId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: new URLSearchParams(params),
  });
}

/** The emulator's answer to a container of one item (image or Reel), settled for a video. */
async function container(item: Item, params: Record<string, string>): Promise<Verdict> {
  const isVideo = item.media.mediaType === 'video';
  const answer = await create({
    ...(isVideo ? { media_type: 'REELS', video_url: item.url } : { image_url: item.url }),
    ...params,
  });
  if (answer.status !== 200) {
    await graphErrorOf(answer);
    return 'refused';
  }
  if (!isVideo) return 'accepted';
  const { id } = (await answer.json()) as { id: string };
  return (await h.settled(id, account.token)).status_code === 'FINISHED' ? 'accepted' : 'refused';
}

/** The emulator's answer to a carousel of `items`. */
async function carousel(items: Item[], params: Record<string, string> = {}): Promise<Verdict> {
  const children: string[] = [];
  for (const item of items) {
    const isVideo = item.media.mediaType === 'video';
    const answer = await create({
      is_carousel_item: 'true',
      ...(isVideo ? { media_type: 'VIDEO', video_url: item.url } : { image_url: item.url }),
    });
    if (answer.status !== 200) return 'refused';
    const { id } = (await answer.json()) as { id: string };
    if ((await h.settled(id, account.token)).status_code !== 'FINISHED') return 'refused';
    children.push(id);
  }
  const parent = await create({
    media_type: 'CAROUSEL',
    children: children.join(','),
    ...params,
  });
  return parent.status === 200 ? 'accepted' : 'refused';
}

function verdictOf(issues: IssueDetail[]): Verdict {
  return issues.length === 0 ? 'accepted' : 'refused';
}

/** A JPEG grown past `bytes` with APP15 segments, which a JPEG reader skips on the way to its frame. */
async function bigJpeg(width: number, height: number, bytes: number): Promise<Buffer> {
  const base = await jpeg(width, height);
  const segment = Buffer.alloc(65_535 + 2, 0x20);
  segment[0] = 0xff;
  segment[1] = 0xef;
  segment.writeUInt16BE(65_535, 2);
  const count = Math.ceil((bytes - base.length) / segment.length) + 1;
  return Buffer.concat([base.subarray(0, 2), ...Array<Buffer>(count).fill(segment), base.subarray(2)]);
}

describe('Instagram rules: Postdeck and the emulator agree', () => {
  it.each([
    [1080, 1350, 'accepted'],
    [1080, 1080, 'accepted'],
    [1440, 754, 'accepted'],
    [320, 400, 'accepted'],
    [1080, 1920, 'refused'],
    [1080, 540, 'refused'],
    [1500, 1000, 'refused'],
    [300, 300, 'refused'],
  ] as const)('an image %ix%i is %s by both (width 320-1440, aspect 4:5 to 1.91:1)', async (w, h2, expected) => {
    const item = await image(w, h2);
    const ours = await postdeck([item]);
    expect(verdictOf(ours)).toBe(expected);
    if (expected === 'refused') expect(ours[0]?.path).toEqual(['mediaIds', 0]);
    expect(await container(item, {})).toBe(expected);
  });

  it('refuses an image of 8 MiB or more as the emulator does, and sends a WebP as the JPEG it renders', async () => {
    const large = serve(await bigJpeg(1080, 1350, 8 * 1024 * 1024 + 10), {
      mediaType: 'image',
      mimeType: 'image/jpeg',
      width: 1080,
      height: 1350,
    });
    expect(verdictOf(await postdeck([large]))).toBe('refused');
    expect(await container(large, {})).toBe('refused');
    const webpBytes = await sharp({ create: { width: 1080, height: 1350, channels: 3, background: '#888' } })
      .webp()
      .toBuffer();
    const webp = serve(webpBytes, { mediaType: 'image', mimeType: 'image/webp', width: 1080, height: 1350 });
    expect(verdictOf(await postdeck([webp]))).toBe('accepted');
    expect(await container(webp, {})).toBe('refused');
    const stored = await storeMediaBytes(t.deps, scope, webpBytes, { source: 'upload', fileName: 'slide.webp' });
    const original = (await t.deps.db.media.findOne({ _id: stored.id }))!;
    const rendering = t.deps.providers.of(platform).rules.images!;
    const sent = await fitToAspect(t.deps, scope, original, rendering.limits, { mode: 'crop' });
    expect(sent.mimeType).toBe('image/jpeg');
    const jpegBytes = await readMediaBytes(t.deps, sent.storageKey);
    const rendered = serve(jpegBytes, { mediaType: 'image', mimeType: 'image/jpeg', width: 1080, height: 1350 });
    expect(verdictOf(await postdeck([rendered]))).toBe('accepted');
    expect(await container(rendered, {})).toBe('accepted');
  });

  it.each([
    [{ mode: 'pad', background: 'blur' }, [1440, 1800]],
    [{ mode: 'crop' }, [1080, 1350]],
  ] as const)(
    'accepts a 9:16 image with fit %j and sends the %j JPEG it renders, which the emulator accepts',
    async (fit, size) => {
      const bytes = await jpeg(1080, 1920);
      const tall = serve(bytes, { mediaType: 'image', mimeType: 'image/jpeg', width: 1080, height: 1920 });
      expect(verdictOf(await postdeck([tall], '', { fit }))).toBe('accepted');
      expect(await container(tall, {})).toBe('refused');
      const stored = await storeMediaBytes(t.deps, scope, bytes, { source: 'upload', fileName: 'tall.jpg' });
      const original = (await t.deps.db.media.findOne({ _id: stored.id }))!;
      const sent = await fitToAspect(t.deps, scope, original, t.deps.providers.of(platform).rules.images!.limits, fit);
      const [width, height] = size;
      const rendered = serve(await readMediaBytes(t.deps, sent.storageKey), {
        mediaType: 'image',
        mimeType: 'image/jpeg',
        width,
        height,
      });
      expect(verdictOf(await postdeck([rendered], '', { fit }))).toBe('accepted');
      expect(await container(rendered, {})).toBe('accepted');
    },
  );

  it.each([
    ['2,200 characters', 'accepted', 'a'.repeat(2200)],
    ['2,201 characters', 'refused', 'a'.repeat(2201)],
    ['2,200 emoji (code points, not UTF-16 units)', 'accepted', '😀'.repeat(2200)],
    ['30 hashtags', 'accepted', Array.from({ length: 30 }, (_, i) => `#tag${i}`).join(' ')],
    ['31 hashtags', 'refused', Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ')],
    ['20 mentions', 'accepted', Array.from({ length: 20 }, (_, i) => `@user${i}`).join(' ')],
    ['21 mentions', 'refused', Array.from({ length: 21 }, (_, i) => `@user${i}`).join(' ')],
  ] as const)('a caption of %s is %s by both', async (_name, expected, caption) => {
    const item = await image(1080, 1350);
    const ours = await postdeck([item], caption);
    expect(verdictOf(ours)).toBe(expected);
    if (expected === 'refused') expect(ours[0]?.path).toEqual(['content']);
    expect(await container(item, { caption })).toBe(expected);
  });

  it('takes a carousel of 2 to 10 items, images and videos mixed, and refuses 11', async () => {
    const mixed = [await image(1080, 1350), video(5, 1080, 1350)];
    expect(verdictOf(await postdeck(mixed))).toBe('accepted');
    expect(await carousel(mixed)).toBe('accepted');
    const eleven = await Promise.all(Array.from({ length: 11 }, () => image(1080, 1080)));
    const ours = await postdeck(eleven);
    expect(ours).toEqual([{ path: ['mediaIds'], message: expect.stringContaining('2 to 10 items') }]);
    expect(await carousel(eleven)).toBe('refused');
  });

  it.each([
    [5, 'accepted'],
    [2, 'refused'],
    [16 * 60, 'refused'],
  ] as const)('a Reel of %i s is %s by both (3 s to 15 min)', async (seconds, expected) => {
    const item = video(seconds);
    expect(verdictOf(await postdeck([item]))).toBe(expected);
    expect(await container(item, {})).toBe(expected);
  });

  it.each([
    ['three collaborators', 'accepted', { collaborators: ['ana', 'bo', 'cy'] }],
    ['four collaborators', 'refused', { collaborators: ['ana', 'bo', 'cy', 'di'] }],
    ['a collaborator written with @', 'refused', { collaborators: ['@ana'] }],
    ['alt text for the image', 'accepted', { alt_text: ['A cat on a sofa'] }],
    ['share_to_feed on an image', 'refused', { share_to_feed: true }],
    ['thumb_offset on an image', 'refused', { thumb_offset: 0 }],
  ] as const)('an image post with %s is %s by both', async (_name, expected, settings) => {
    const item = await image(1080, 1350);
    const ours = await postdeck([item], '', settings);
    expect(verdictOf(ours)).toBe(expected);
    if (expected === 'refused') expect(ours[0]?.path[0]).toBe('settings');
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(settings)) {
      params[key] =
        key === 'collaborators'
          ? JSON.stringify(value)
          : key === 'alt_text'
            ? String((value as string[])[0])
            : String(value);
    }
    expect(await container(item, params)).toBe(expected);
  });

  it.each([
    ['share_to_feed', 'accepted', { share_to_feed: false }],
    ['a thumb_offset inside the video', 'accepted', { thumb_offset: 4000 }],
    ['a thumb_offset past the end', 'refused', { thumb_offset: 6000 }],
    ['alt text on the video', 'refused', { alt_text: ['A cat'] }],
  ] as const)('a Reel with %s is %s by both', async (_name, expected, settings) => {
    const item = video(5);
    const ours = await postdeck([item], '', settings);
    expect(verdictOf(ours)).toBe(expected);
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(settings)) {
      params[key] = key === 'alt_text' ? String((value as string[])[0]) : String(value);
    }
    expect(await container(item, params)).toBe(expected);
  });
});
