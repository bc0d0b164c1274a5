import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { makeJpeg, pathOf, upload } from '../support/media.js';
import { buildMp4OfSize } from '../support/video.js';

const { t, server } = await useTestServer();
let image: { bytes: Buffer; publicUrl: string; previewUrl: string };
let video: { bytes: Buffer; publicUrl: string; previewUrl: string };
beforeAll(async () => {
  const tenant = await buildTenant(t.deps);
  const post = async (bytes: Buffer) => {
    const media = (await (await upload(server, tenant.apiKey, { bytes })).json()) as {
      publicUrl: string;
      previewUrl: string;
    };
    return { bytes, ...media };
  };
  image = await post(await makeJpeg(1600, 900));
  video = await post(buildMp4OfSize(100_032));
});

describe('public media URLs', () => {
  it('serve the exact bytes without a key, with type, length, ETag, ranges and caching headers', async () => {
    for (const [media, type] of [
      [image, 'image/jpeg'],
      [video, 'video/mp4'],
    ] as const) {
      const response = await server.request(pathOf(media.publicUrl));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('content-length')).toBe(String(media.bytes.length));
      expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
      expect(response.headers.get('accept-ranges')).toBe('bytes');
      expect(response.headers.get('cache-control')).toContain('immutable');
      expect(Buffer.from(await response.arrayBuffer()).equals(media.bytes)).toBe(true);
    }
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=1000-', 1000, 100_031],
    ['bytes=-32', 100_000, 100_031],
    ['bytes=99990-200000', 99_990, 100_031],
  ])('answer Range %s with 206 and exactly those bytes', async (range, start, end) => {
    const response = await server.request(pathOf(video.publicUrl), { headers: { range } });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${video.bytes.length}`);
    expect(response.headers.get('content-length')).toBe(String(end - start + 1));
    expect(Buffer.from(await response.arrayBuffer()).equals(video.bytes.subarray(start, end + 1))).toBe(true);
  });

  it('answer an unsatisfiable range with 416 and the full length', async () => {
    const response = await server.request(pathOf(video.publicUrl), { headers: { range: 'bytes=200000-' } });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe(`bytes */${video.bytes.length}`);
  });

  it('send the whole file for several ranges, and 304 for a matching If-None-Match', async () => {
    const whole = await server.request(pathOf(image.publicUrl), { headers: { range: 'bytes=0-1,5-9' } });
    expect(whole.status).toBe(200);
    await whole.arrayBuffer();
    const etag = whole.headers.get('etag') ?? '';
    const cached = await server.request(pathOf(image.publicUrl), { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
  });

  it('answer HEAD with the headers only', async () => {
    const response = await server.request(pathOf(image.publicUrl), { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(image.bytes.length));
  });

  it('serve an image preview downscaled to at most 512 px, and a placeholder for videos', async () => {
    const preview = await server.request(pathOf(image.previewUrl));
    expect(preview.headers.get('content-type')).toBe('image/webp');
    const meta = await sharp(Buffer.from(await preview.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 512, 288]);
    const placeholder = await server.request(pathOf(video.previewUrl));
    expect(placeholder.status).toBe(200);
    expect((await sharp(Buffer.from(await placeholder.arrayBuffer())).metadata()).format).toBe('webp');
  });

  it('answer 404 not_found for a wrong token, a malformed one and an unknown id', async () => {
    const [, , id, token] = pathOf(image.publicUrl).split('/');
    const wrong = `${token?.slice(0, -1)}${token?.endsWith('0') ? '1' : '0'}`;
    for (const path of [`/m/${id}/${wrong}`, `/m/${id}/xyz`, `/m/6f1c1d8e-0000-4000-8000-000000000000/${token}`]) {
      const response = await server.request(path);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'not_found' });
    }
  });
});
