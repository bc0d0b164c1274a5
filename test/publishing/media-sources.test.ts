import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps, Scope } from '../../src/core/context.js';
import type { MediaDoc } from '../../src/core/media/documents.js';
import { deleteMedia } from '../../src/core/media/manage-media.js';
import { openMediaStore } from '../../src/core/media/open-store.js';
import { ensureRendition, renderFittingJpeg } from '../../src/core/media/renditions.js';
import { newStorageKey } from '../../src/core/media/store.js';
import {
  photoUrlsForTikTok,
  TIKTOK_PHOTO_FIT,
  videoSourceFor,
} from '../../src/core/providers/tiktok/publish/media-sources.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildMedia, makeJpeg, makeMp4, makePng, makeWebp, upload } from '../support/media.js';
import { freePort } from '../support/spawn.js';
import {
  apiCall,
  connectRaw,
  controlCall,
  pollStatus,
  startTikTokFixture,
  type TikTokFixture,
} from '../support/tiktok.js';

let t: TestDatabase;
let server: TestServer;
let tiktok: TikTokFixture;
let apiKey: string;
let workspaceId: string;
let accountId: string;
let baseUrl: string;
beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await openTestDatabase({ media: { publicBaseUrl: baseUrl } });
  server = await startTestServer(t, { port });
  const tenant = await buildTenant(t.deps);
  apiKey = tenant.apiKey;
  workspaceId = tenant.workspaceId;
  accountId = tenant.accountId;
  tiktok = await startTikTokFixture({
    verifiedUrlPrefixes: [`${baseUrl}/m/`],
    allowHttpPullUrls: true,
    rateLimits: { contentInit: 1000, status: 100_000 },
  });
});
afterAll(async () => {
  await tiktok?.emulator.stop();
  await server?.stop();
  await t?.close();
});

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Uploads through the API and returns the stored media document. */
async function uploaded(bytes: Buffer): Promise<MediaDoc> {
  const response = await upload(server, apiKey, { bytes });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  return (await t.deps.db.media.findOne({ _id: id }))!;
}

/** Every object in the local store (the `.tmp` directory holds only unfinished writes). */
async function storedKeys(): Promise<string[]> {
  const keys: string[] = [];
  for (const shard of await readdir(t.mediaDir)) {
    if (shard !== '.tmp') keys.push(...(await readdir(path.join(t.mediaDir, shard))));
  }
  return keys.sort();
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { headers, redirect: 'manual' });
}

describe('photoUrlsForTikTok', () => {
  it('sends images over 1080p as a stored JPEG rendition and keeps fitting ones as they are', async () => {
    const large = await uploaded(await makeJpeg(4000, 3000));
    const webp = await uploaded(await makeWebp(1200, 1200));
    const fitting = await uploaded(await makeJpeg(1080, 1920));
    const publicUrl = (doc: MediaDoc) => `${baseUrl}/m/${doc._id}/${doc.publicToken}`;

    const urls = await photoUrlsForTikTok(t.deps, [large, webp, fitting]);
    expect(urls).toEqual([`${publicUrl(large)}/tiktok.jpg`, `${publicUrl(webp)}/tiktok.jpg`, publicUrl(fitting)]);
    expect(await t.deps.db.mediaRenditions.findOne({ _id: `${fitting._id}#tiktok` })).toBeNull();

    for (const [doc, url, width, height] of [
      [large, urls[0]!, 1440, 1080],
      [webp, urls[1]!, 1080, 1080],
    ] as const) {
      const rendition = (await t.deps.db.mediaRenditions.findOne({ _id: `${doc._id}#tiktok` }))!;
      expect(rendition).toMatchObject({ mediaId: doc._id, workspaceId, mimeType: 'image/jpeg', width, height });
      const response = await get(url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/jpeg');
      expect(response.headers.get('etag')).toBe(`"${rendition.sha256}"`);
      expect(response.headers.get('accept-ranges')).toBe('bytes');
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.length).toBe(rendition.size);
      expect(sha(body)).toBe(rendition.sha256);
      expect(await sharp(body).metadata()).toMatchObject({ format: 'jpeg', width, height });

      const ranged = await get(url, { range: 'bytes=100-299' });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe(`bytes 100-299/${rendition.size}`);
      expect(Buffer.from(await ranged.arrayBuffer()).equals(body.subarray(100, 300))).toBe(true);
      expect((await get(url, { 'if-none-match': `"${rendition.sha256}"` })).status).toBe(304);

      // The token proves the link was handed out, exactly as for the original.
      const wrongToken = url.replace(doc.publicToken, randomBytes(16).toString('hex'));
      expect((await get(wrongToken)).status).toBe(404);
    }
    // The originals are untouched and a fitting image has no rendition URL.
    expect(sha(Buffer.from(await (await get(publicUrl(large))).arrayBuffer()))).toBe(large.sha256);
    expect((await get(`${publicUrl(fitting)}/tiktok.jpg`)).status).toBe(404);
    // Recorded beside the media, not on it.
    expect(await t.deps.db.media.findOne({ _id: large._id })).toEqual(large);
  });

  it('reuses the stored rendition on later calls', async () => {
    const doc = await uploaded(await makeJpeg(3000, 2000));
    await photoUrlsForTikTok(t.deps, [doc]);
    const first = (await t.deps.db.mediaRenditions.findOne({ _id: `${doc._id}#tiktok` }))!;
    const keys = await storedKeys();
    expect(keys).toContain(first.storageKey);
    const urls = await photoUrlsForTikTok(t.deps, [doc, doc]);
    expect(urls).toEqual([`${baseUrl}/m/${doc._id}/${doc.publicToken}/tiktok.jpg`, urls[0]]);
    expect(await t.deps.db.mediaRenditions.findOne({ _id: `${doc._id}#tiktok` })).toEqual(first);
    expect(await storedKeys()).toEqual(keys);
  });

  it('lets concurrent callers end with one stored rendition and an unchanged media document', async () => {
    const doc = await uploaded(await makeJpeg(2500, 2500));
    const before = await storedKeys();
    const results = await Promise.all([1, 2, 3].map(() => photoUrlsForTikTok(t.deps, [doc])));
    expect(new Set(results.map((urls) => urls[0])).size).toBe(1);
    const rendition = (await t.deps.db.mediaRenditions.findOne({ _id: `${doc._id}#tiktok` }))!;
    // Only the winner's bytes stay: the others deleted theirs.
    expect(await storedKeys()).toEqual([...before, rendition.storageKey].sort());
    const response = await get(results[0]![0]!);
    expect(response.status).toBe(200);
    expect(sha(Buffer.from(await response.arrayBuffer()))).toBe(rendition.sha256);
    expect(await t.deps.db.media.findOne({ _id: doc._id })).toEqual(doc);
  });

  it('converts images TikTok refuses for their type or byte size, and reads sizes it was not told', async () => {
    // A PNG made by another source (uploads refuse PNG), with no recorded dimensions.
    const pngBytes = await makePng();
    const pngKey = newStorageKey();
    await t.deps.media.store.put(pngKey, Readable.from([pngBytes]));
    const png = await buildMedia(t.deps, workspaceId, {
      source: 'generated',
      storageKey: pngKey,
      mimeType: 'image/png',
      size: pngBytes.length,
      sha256: sha(pngBytes),
      thumbnailMetadata: null,
    });
    // A JPEG within 1080×1920 but over 20 MB (trailing bytes after the image, which decoders ignore).
    const heavyBytes = Buffer.concat([await makeJpeg(1080, 1920), randomBytes(20 * 1024 * 1024 + 1)]);
    const heavyKey = newStorageKey();
    await t.deps.media.store.put(heavyKey, Readable.from([heavyBytes]));
    const heavy = await buildMedia(t.deps, workspaceId, {
      storageKey: heavyKey,
      size: heavyBytes.length,
      sha256: sha(heavyBytes),
      thumbnailMetadata: { width: 1080, height: 1920 },
    });

    const urls = await photoUrlsForTikTok(t.deps, [png, heavy]);
    expect(urls).toEqual([
      `${baseUrl}/m/${png._id}/${png.publicToken}/tiktok.jpg`,
      `${baseUrl}/m/${heavy._id}/${heavy.publicToken}/tiktok.jpg`,
    ]);
    const pngOut = Buffer.from(await (await get(urls[0]!)).arrayBuffer());
    expect(await sharp(pngOut).metadata()).toMatchObject({ format: 'jpeg', width: 64, height: 64 });
    const heavyOut = Buffer.from(await (await get(urls[1]!)).arrayBuffer());
    expect(heavyOut.length).toBeLessThanOrEqual(20 * 1024 * 1024);
    expect(await sharp(heavyOut).metadata()).toMatchObject({ format: 'jpeg', width: 1080, height: 1920 });
  });

  it('refuses media that is not a ready image', async () => {
    const video = await uploaded(makeMp4(10_000));
    await expect(photoUrlsForTikTok(t.deps, [video])).rejects.toMatchObject({ code: 'invalid_media_file' });
    const pending = await buildMedia(t.deps, workspaceId, { status: 'PENDING' });
    await expect(photoUrlsForTikTok(t.deps, [pending])).rejects.toMatchObject({ code: 'invalid_media_file' });
  });

  it('deletes the rendition with its media', async () => {
    const doc = await uploaded(await makeJpeg(2400, 1600));
    const [url] = await photoUrlsForTikTok(t.deps, [doc]);
    const rendition = (await t.deps.db.mediaRenditions.findOne({ _id: `${doc._id}#tiktok` }))!;
    expect(await t.deps.media.store.exists(rendition.storageKey)).toBe(true);
    const deleted = await server.request(`/public/v1/media/${doc._id}`, { method: 'DELETE', apiKey });
    expect(deleted.status).toBe(204);
    expect(await t.deps.db.mediaRenditions.findOne({ _id: rendition._id })).toBeNull();
    expect(await t.deps.media.store.exists(rendition.storageKey)).toBe(false);
    expect((await get(url!)).status).toBe(404);
    // A caller still holding the deleted document gets not_found and leaves nothing behind.
    const keys = await storedKeys();
    await expect(photoUrlsForTikTok(t.deps, [doc])).rejects.toMatchObject({ code: 'not_found' });
    expect(await t.deps.db.mediaRenditions.findOne({ _id: rendition._id })).toBeNull();
    expect(await storedKeys()).toEqual(keys);
  });

  it('removes a rendition finished after its media was deleted', async () => {
    const doc = await uploaded(await makeJpeg(2400, 1600));
    const scope: Scope = { workspaceId, accountId, actor: { type: 'system' } };
    // The media is deleted while the rendition is being made (the open file stays readable).
    const render = async (source: Readable) => {
      await deleteMedia(t.deps, t.deps.media, scope, doc._id);
      return renderFittingJpeg(source, TIKTOK_PHOTO_FIT);
    };
    const keysBefore = await storedKeys();
    await expect(ensureRendition(t.deps, doc, 'tiktok', render)).rejects.toMatchObject({ code: 'not_found' });
    expect(await t.deps.db.mediaRenditions.findOne({ _id: `${doc._id}#tiktok` })).toBeNull();
    const gone = [doc.storageKey, doc.preview!.storageKey];
    expect(await storedKeys()).toEqual(keysBefore.filter((key) => !gone.includes(key)));
  });

  it('gives URLs the TikTok emulator pulls: it receives exactly the rendition bytes', async () => {
    const large = await uploaded(await makeJpeg(1920, 2560));
    const fitting = await uploaded(await makeWebp(800, 800));
    const urls = await photoUrlsForTikTok(t.deps, [large, fitting]);
    const rendition = (await t.deps.db.mediaRenditions.findOne({ _id: `${large._id}#tiktok` }))!;
    const { token } = await connectRaw(tiktok.emulator.url);
    const init = await apiCall(tiktok.emulator.url, token, '/v2/post/publish/content/init/', {
      media_type: 'PHOTO',
      post_mode: 'DIRECT_POST',
      post_info: { privacy_level: 'PUBLIC_TO_EVERYONE', title: 'renditions' },
      source_info: { source: 'PULL_FROM_URL', photo_images: urls, photo_cover_index: 0 },
    });
    expect(init.status).toBe(200);
    const publishId = String(init.json.data!.publish_id);
    const done = await pollStatus(tiktok.emulator.url, token, publishId);
    expect(done.data).toMatchObject({ status: 'PUBLISH_COMPLETE' });
    const post = (await (await controlCall(tiktok.emulator.url, 'GET', `/__control/posts/${publishId}`)).json()) as {
      media: { url: string; sha256: string; format: string; width: number; height: number }[];
    };
    expect(post.media).toEqual([
      { url: urls[0], bytes: rendition.size, sha256: rendition.sha256, format: 'jpeg', width: 1080, height: 1440 },
      { url: urls[1], bytes: fitting.size, sha256: fitting.sha256, format: 'webp', width: 800, height: 800 },
    ]);
  });
});

describe('videoSourceFor', () => {
  const checkRanges = async (deps: CoreDeps, doc: MediaDoc, bytes: Buffer) => {
    const source = videoSourceFor(deps, doc);
    expect(source).toMatchObject({ size: bytes.length, mimeType: doc.mimeType });
    const last = bytes.length - 1;
    for (const [start, end] of [
      [0, last],
      [0, 99],
      [1000, 5 * 1024 * 1024],
      [5 * 1024 * 1024 + 1, last],
      [last, last],
    ] as const) {
      const got = await bytesOf(await source.open(start, end));
      expect(got.equals(bytes.subarray(start, end + 1))).toBe(true);
    }
    await expect(source.open(0, bytes.length)).rejects.toThrow(RangeError);
    await expect(source.open(10, 9)).rejects.toThrow(RangeError);
  };

  it('streams exact byte ranges from the local store', async () => {
    const bytes = makeMp4(6 * 1024 * 1024);
    const doc = await uploaded(bytes);
    await checkRanges(t.deps, doc, bytes);
  });

  it('streams exact byte ranges from an S3 store', async () => {
    const s3Dir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-s3-'));
    const s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: s3Dir,
      configureBuckets: [{ name: 'postdeck-media', configs: [] }],
    });
    try {
      const { port } = await s3.run();
      const store = openMediaStore({
        kind: 's3',
        bucket: 'postdeck-media',
        prefix: 'media/',
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        forcePathStyle: true,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
      });
      const deps: CoreDeps = { ...t.deps, media: { ...t.deps.media, store } };
      const bytes = makeMp4(6 * 1024 * 1024);
      const storageKey = newStorageKey();
      await store.put(storageKey, Readable.from([bytes]));
      const doc = await buildMedia(deps, workspaceId, {
        storageKey,
        mimeType: 'video/mp4',
        mediaType: 'video',
        size: bytes.length,
        sha256: sha(bytes),
        thumbnailMetadata: null,
      });
      await checkRanges(deps, doc, bytes);
    } finally {
      await s3.close();
      await rm(s3Dir, { recursive: true, force: true });
    }
  });

  it('refuses media that is not a ready video', async () => {
    const image = await uploaded(await makeJpeg(100, 100));
    expect(() => videoSourceFor(t.deps, image)).toThrow(expect.objectContaining({ code: 'invalid_media_file' }));
  });
});
