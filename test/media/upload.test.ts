import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { makeJpeg, makeMp4, makePng, makeWebp, upload } from '../support/media.js';

const { t, server } = await useTestServer({ server: { media: { limits: { image: 200_000, video: 300_000 } } } });
let tenant: Awaited<ReturnType<typeof buildTenant>>;
beforeAll(async () => {
  tenant = await buildTenant(t.deps);
});

/** Every stored file (temporary ones included), so a test can see that nothing was left behind. */
async function storedFiles(): Promise<string[]> {
  const entries = await readdir(server.mediaDir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('POST /public/v1/media', () => {
  it('stores a JPEG as a READY upload with its size, dimensions and URLs', async () => {
    const bytes = await makeJpeg(640, 480);
    const response = await upload(server, tenant.apiKey, { bytes, name: 'cat.jpg', type: 'image/jpeg' });
    expect(response.status).toBe(201);
    const media = (await response.json()) as Record<string, unknown>;
    expect(media).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      storageKey: expect.stringMatching(/^[0-9a-f]{32}$/),
      publicUrl: expect.stringMatching(/^http:\/\/localhost\/m\/[0-9a-f-]{36}\/[0-9a-f]{32}$/),
      previewUrl: expect.stringMatching(/\/preview$/),
      mimeType: 'image/jpeg',
      mediaType: 'image',
      size: bytes.length,
      originalFileName: 'cat.jpg',
      status: 'READY',
      source: 'upload',
      thumbnailMetadata: { width: 640, height: 480 },
      folderId: null,
      finalizedAt: expect.any(String),
      createdAt: expect.any(String),
    });
  });

  it('accepts a WebP, with fileName overriding the part name and the declared types agreeing', async () => {
    const response = await upload(
      server,
      tenant.apiKey,
      { bytes: await makeWebp(300, 900), name: 'x.webp' },
      { fileName: '  Tall one.webp ', mimeType: 'image/webp', mediaType: 'image', folderId: 'null' },
    );
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      mimeType: 'image/webp',
      originalFileName: 'Tall one.webp',
      thumbnailMetadata: { width: 300, height: 900 },
    });
  });

  it.each([
    ['isom', 'video/mp4'],
    ['mp42', 'video/mp4'],
    ['qt  ', 'video/quicktime'],
  ])('accepts a video with ftyp brand %j as %s', async (brand, mimeType) => {
    const bytes = makeMp4(10_000, brand);
    const response = await upload(server, tenant.apiKey, { bytes, name: 'clip' });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ mimeType, mediaType: 'video', size: bytes.length });
  });

  it('accepts a WebM (EBML with DocType webm)', async () => {
    const head = Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84, ...Buffer.from('webm')]);
    const response = await upload(server, tenant.apiKey, { bytes: Buffer.concat([head, Buffer.alloc(500)]) });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ mimeType: 'video/webm', mediaType: 'video' });
  });

  it.each([
    ['PNG bytes declared as image/jpeg', () => makePng(), { mimeType: 'image/jpeg' }, 'x.jpg'],
    ['a text file named .mp4', () => Buffer.from('just some text, honest\n'.repeat(20)), {}, 'x.mp4'],
    ['a PDF', () => Buffer.from('%PDF-1.7\n'.repeat(20)), {}, 'x.pdf'],
    ['an executable', () => Buffer.concat([Buffer.from('\x7fELF'), Buffer.alloc(200)]), {}, 'x.jpg'],
    ['HEIF (an ftyp box of another brand)', () => makeMp4(100, 'heic'), {}, 'x.heic'],
    ['an empty file', () => Buffer.alloc(0), {}, 'x.jpg'],
  ])('rejects %s with invalid_media_file and keeps nothing', async (_label, bytes, fields, name) => {
    const before = await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId });
    const response = await upload(server, tenant.apiKey, { bytes: await bytes(), name }, fields);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_media_file', message: expect.any(String) });
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(before);
  });

  it.each([
    ['a JPEG declared as video/mp4', { mimeType: 'video/mp4' }],
    ['a JPEG declared as mediaType video', { mediaType: 'video' }],
    ['a mimeType outside the list', { mimeType: 'image/gif' }],
    ['a JPEG declared as image/png', { mimeType: 'image/png' }],
    ['mediaType audio', { mediaType: 'audio' }],
  ])('rejects %s with invalid_media_file', async (_label, fields) => {
    const response = await upload(server, tenant.apiKey, { bytes: await makeJpeg(20, 20) }, fields);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_media_file' });
  });

  it('rejects a form without a file field with invalid_media_file', async () => {
    const response = await upload(server, tenant.apiKey, null, { fileName: 'a.jpg' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'invalid_media_file',
      message: expect.stringContaining('file'),
    });
  });

  it.each([
    [{ folderId: 'root' }, ['body', 'folderId']],
    [{ fileName: 'x'.repeat(256) }, ['body', 'fileName']],
    [{ fileName: '   ' }, ['body', 'fileName']],
  ])('rejects bad fields %j with invalid_request naming the field', async (fields, where) => {
    const response = await upload(server, tenant.apiKey, { bytes: await makeJpeg(20, 20) }, fields);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; details: { path: string[] }[] };
    expect(body.code).toBe('invalid_request');
    expect(body.details[0]?.path).toEqual(where);
  });

  it('refuses a JSON body with 415 unsupported_media_type', async () => {
    const response = await server.request('/public/v1/media', {
      method: 'POST',
      apiKey: tenant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('refuses an image over the image limit with 413 naming the limit and its setting', async () => {
    const response = await upload(server, tenant.apiKey, { bytes: await noisyJpeg(600, 600) });
    expect(response.status).toBe(413);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe('payload_too_large');
    expect(body.message).toContain('200000 bytes');
    expect(body.message).toContain('MEDIA_MAX_IMAGE_BYTES');
  });

  it('refuses a video over the video limit, while a same-size image would be refused earlier', async () => {
    const response = await upload(server, tenant.apiKey, { bytes: makeMp4(400_000) });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { message: string }).message).toContain('MEDIA_MAX_VIDEO_BYTES');
    expect((await upload(server, tenant.apiKey, { bytes: makeMp4(250_000) })).status).toBe(201);
  });

  it("answers not_found for another workspace's folder and a folder that does not exist", async () => {
    const other = await buildTenant(t.deps);
    const folder = (await (
      await server.request('/public/v1/media/folders', {
        method: 'POST',
        apiKey: other.apiKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'theirs' }),
      })
    ).json()) as { id: string };
    for (const folderId of [folder.id, '6f1c1d8e-0000-4000-8000-000000000000']) {
      const response = await upload(server, tenant.apiKey, { bytes: await makeJpeg(20, 20) }, { folderId });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'not_found' });
    }
  });

  it('answers missing_api_key and invalid_api_key before reading the upload', async () => {
    const bytes = await makeJpeg(20, 20);
    const missing = await upload(server, undefined, { bytes });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: 'missing_api_key' });
    const invalid = await upload(server, `service_sk_${'A'.repeat(43)}`, { bytes });
    expect(invalid.status).toBe(401);
    expect(await invalid.json()).toMatchObject({ code: 'invalid_api_key' });
  });

  it('leaves exactly the files of the stored media (originals and image previews) and nothing else', async () => {
    const docs = await t.deps.db.media.find({}).toArray();
    const expected = docs.flatMap((d) => [d.storageKey, ...(d.preview ? [d.preview.storageKey] : [])]);
    // A refused upload's partial file is removed as the request ends, which may trail its answer under load.
    await vi.waitFor(async () => {
      const files = await storedFiles();
      expect(files.map((f) => path.basename(f)).sort()).toEqual(expected.sort());
    }, 5_000);
  });
});

/** A noisy JPEG, which stays large (a flat colour compresses to almost nothing). */
function noisyJpeg(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
}
