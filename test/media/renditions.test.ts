import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { renderFittingJpeg, type JpegFit } from '../../src/core/media/renditions.js';
import { TIKTOK_PHOTO_FIT } from '../../src/core/providers/tiktok/publish/media-sources.js';
import { makeJpeg, makeWebp } from '../support/media.js';

const streamOf = (bytes: Buffer) => Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]);

/** Random pixels compress badly, so their JPEG size depends strongly on the quality. */
function noise(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

describe('renderFittingJpeg', () => {
  it.each([
    ['landscape 4000×3000', 4000, 3000, 1440, 1080],
    ['square 1200×1200', 1200, 1200, 1080, 1080],
    ['tall 2000×5000 (long side decides)', 2000, 5000, 768, 1920],
    ['wide 5000×1500 (long side decides)', 5000, 1500, 1920, 576],
    ['portrait 1200×1900 (short side decides)', 1200, 1900, 1080, 1710],
  ])('scales %s to fit 1080×1920 in its own orientation, aspect kept', async (_name, w, h, ew, eh) => {
    const out = await renderFittingJpeg(streamOf(await makeJpeg(w, h)), TIKTOK_PHOTO_FIT);
    const meta = await sharp(out.bytes).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: ew, height: eh });
    expect(out).toMatchObject({ width: ew, height: eh, quality: 90 });
  });

  it('never enlarges a small image', async () => {
    const out = await renderFittingJpeg(streamOf(await makeWebp(300, 900)), TIKTOK_PHOTO_FIT);
    expect(await sharp(out.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 300, height: 900 });
  });

  it('applies the EXIF orientation and strips metadata', async () => {
    // Stored 3000 wide and 4000 high, left half red and right half blue; orientation 6 turns it clockwise, so
    // it shows 4000×3000 with red on top.
    const left = await sharp({ create: { width: 1500, height: 4000, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    const stored = await sharp({ create: { width: 3000, height: 4000, channels: 3, background: '#0000ff' } })
      .composite([{ input: left, left: 0, top: 0 }])
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(stored).metadata()).orientation).toBe(6);
    const out = await renderFittingJpeg(streamOf(stored), TIKTOK_PHOTO_FIT);
    const meta = await sharp(out.bytes).metadata();
    expect(meta).toMatchObject({ width: 1440, height: 1080 });
    expect(meta.orientation).toBeUndefined();
    expect(meta.exif).toBeUndefined();
    const { data } = await sharp(out.bytes).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * 1440 + x) * 3, (y * 1440 + x) * 3 + 3)];
    expect(pixel(720, 100)[0]).toBeGreaterThan(200);
    expect(pixel(720, 100)[2]).toBeLessThan(50);
    expect(pixel(720, 980)[2]).toBeGreaterThan(200);
    expect(pixel(720, 980)[0]).toBeLessThan(50);
  });

  it('puts transparent pixels on white', async () => {
    const transparent = await sharp({ create: { width: 50, height: 50, channels: 4, background: '#00000000' } })
      .webp({ lossless: true })
      .toBuffer();
    const out = await renderFittingJpeg(streamOf(transparent), TIKTOK_PHOTO_FIT);
    const { data, info } = await sharp(out.bytes).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(3);
    expect(Math.min(...data)).toBeGreaterThan(245);
  });

  it('lowers the quality only as far as the byte budget needs', async () => {
    const bytes = await noise(600, 400);
    const atNinety = await renderFittingJpeg(streamOf(bytes), TIKTOK_PHOTO_FIT);
    expect(atNinety.quality).toBe(90);
    const budget: JpegFit = { ...TIKTOK_PHOTO_FIT, maxBytes: Math.floor(atNinety.bytes.length * 0.7) };
    const squeezed = await renderFittingJpeg(streamOf(bytes), budget);
    expect(squeezed.quality).toBeLessThan(90);
    expect(squeezed.bytes.length).toBeLessThanOrEqual(budget.maxBytes);
    expect(await sharp(squeezed.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 600, height: 400 });
  });

  it('refuses with invalid_media_file when no quality fits or the bytes are no image', async () => {
    const tiny: JpegFit = { ...TIKTOK_PHOTO_FIT, maxBytes: 100 };
    await expect(renderFittingJpeg(streamOf(await noise(200, 200)), tiny)).rejects.toMatchObject({
      code: 'invalid_media_file',
    });
    const garbage = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(5000)]);
    const failure = await renderFittingJpeg(streamOf(garbage), TIKTOK_PHOTO_FIT).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'invalid_media_file' });
  });
});
