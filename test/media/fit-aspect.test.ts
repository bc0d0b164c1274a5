import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/core/context.js';
import type { MediaDoc } from '../../src/core/media/documents.js';
import { fitToAspect, fittedSize } from '../../src/core/media/fit-aspect.js';
import { readMediaBytes, storeMediaBytes } from '../../src/core/media/store-bytes.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';

// Fitting an image to a network's aspect limits (Instagram's feed: 4:5 to 1.91:1, at most 1440 px wide).
const FEED = { minAspect: 0.8, maxAspect: 1.91, maxWidth: 1440 };

let t: TestDatabase;
let scope: Scope;
beforeAll(async () => {
  t = await openTestDatabase();
  const tenant = await buildTenant(t.deps);
  scope = { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' } };
});
afterAll(() => t.close());

/** A 9:16 image: a red band on top, a green middle, a blue band at the bottom (each a third). */
async function tallImage(width = 1080, height = 1920): Promise<MediaDoc> {
  const third = Math.round(height / 3);
  const band = (colour: string, h: number) =>
    sharp({ create: { width, height: h, channels: 3, background: colour } })
      .png()
      .toBuffer();
  const bytes = await sharp({ create: { width, height, channels: 3, background: '#00c000' } })
    .composite([
      { input: await band('#e00000', third), left: 0, top: 0 },
      { input: await band('#0000e0', third), left: 0, top: height - third },
    ])
    .jpeg({ quality: 95 })
    .toBuffer();
  const media = await storeMediaBytes(t.deps, scope, bytes, { source: 'upload', fileName: 'tall.jpg' });
  return (await t.deps.db.media.findOne({ _id: media.id })) as MediaDoc;
}

async function pixels(media: MediaDoc) {
  const { data, info } = await sharp(await readMediaBytes(t.deps, media.storageKey))
    .raw()
    .toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => {
    const o = (Math.round(y) * info.width + Math.round(x)) * info.channels;
    return [data[o], data[o + 1], data[o + 2]] as [number, number, number];
  };
  return { width: info.width, height: info.height, at };
}

const near = (actual: readonly number[], expected: readonly number[], tolerance = 24) =>
  actual.every((value, i) => Math.abs(value - (expected[i] as number)) <= tolerance);

describe('fitting an image to aspect limits', () => {
  it('pads a 9:16 image on a colour to 4:5: the whole image in the middle, the colour at the sides, a new JPEG linked to the original', async () => {
    const original = await tallImage();
    const fitted = await fitToAspect(t.deps, scope, original, FEED, { mode: 'pad', background: '#ffff00' });
    expect(fitted._id).not.toBe(original._id);
    expect(fitted).toMatchObject({
      mimeType: 'image/jpeg',
      source: 'upload',
      fittedFrom: { mediaId: original._id, fit: { mode: 'pad', background: '#ffff00' } },
    });
    const image = await pixels(fitted);
    // 1080x1920 padded to 1536x1920 (0.8) is wider than 1440: scaled to 1440x1800.
    expect({ width: image.width, height: image.height }).toEqual({ width: 1440, height: 1800 });
    expect(fitted.thumbnailMetadata).toEqual({ width: 1440, height: 1800 });
    // The image (1012 px wide) sits in the middle: red top, blue bottom, kept whole; yellow either side.
    expect(near(image.at(720, 20), [224, 0, 0])).toBe(true);
    expect(near(image.at(720, 1780), [0, 0, 224])).toBe(true);
    expect(near(image.at(720, 900), [0, 192, 0])).toBe(true);
    for (const x of [10, 200, 1240, 1430]) expect(near(image.at(x, 900), [255, 255, 0]), `x ${x}`).toBe(true);
    // The original is untouched and still listed.
    expect(await t.deps.db.media.findOne({ _id: original._id })).toMatchObject({
      thumbnailMetadata: original.thumbnailMetadata,
    });
  });

  it('pads on a blurred, darkened copy of the image itself by default', async () => {
    const original = await tallImage();
    const fitted = await fitToAspect(t.deps, scope, original, FEED, { mode: 'pad', background: 'blur' });
    const image = await pixels(fitted);
    expect(image.width / image.height).toBeCloseTo(0.8, 2);
    // The side bands show the image's colours, darker: red-ish near the top, blue-ish near the bottom.
    const [top, bottom] = [image.at(20, 60), image.at(20, image.height - 60)];
    expect(top[0]).toBeGreaterThan(80);
    expect(top[0]).toBeLessThan(200);
    expect(top[0]).toBeGreaterThan(top[2] + 60);
    expect(bottom[2]).toBeGreaterThan(bottom[0] + 60);
  });

  it('crops a 9:16 image to its centre at 4:5: the top and bottom bands are cut, no background added', async () => {
    const original = await tallImage();
    const fitted = await fitToAspect(t.deps, scope, original, FEED, { mode: 'crop' });
    const image = await pixels(fitted);
    expect({ width: image.width, height: image.height }).toEqual({ width: 1080, height: 1350 });
    // 285 px cut at the top and at the bottom: the 640 px bands keep 355 px each, the green middle all of it.
    expect(near(image.at(540, 10), [224, 0, 0])).toBe(true);
    expect(near(image.at(540, 340), [224, 0, 0])).toBe(true);
    expect(near(image.at(540, 675), [0, 192, 0])).toBe(true);
    expect(near(image.at(540, 1340), [0, 0, 224])).toBe(true);
    for (const x of [5, 1075]) expect(near(image.at(x, 675), [0, 192, 0])).toBe(true);
  });

  it('answers the image itself when it is already within the limits, and the same fitted image when asked again', async () => {
    const original = await tallImage(1080, 1350);
    expect((await fitToAspect(t.deps, scope, original, FEED, { mode: 'crop' }))._id).toBe(original._id);
    const tall = await tallImage();
    const first = await fitToAspect(t.deps, scope, tall, FEED, { mode: 'crop' });
    const again = await fitToAspect(t.deps, scope, tall, FEED, { mode: 'crop' });
    expect(again._id).toBe(first._id);
    const padded = await fitToAspect(t.deps, scope, tall, FEED, { mode: 'pad', background: 'blur' });
    expect(padded._id).not.toBe(first._id);
  });

  it('sizes wide images too, always inside the limits after rounding', () => {
    expect(fittedSize(1920, 800, FEED, { mode: 'crop' })).toEqual({ width: 1440, height: 754 });
    expect(fittedSize(1000, 300, { minAspect: 0.8, maxAspect: 1.91 }, { mode: 'pad', background: 'blur' })).toEqual({
      width: 1000,
      height: 524,
    });
    for (const [w, h] of [
      [1080, 1920],
      [1081, 1923],
      [3000, 900],
      [4000, 5001],
      [321, 2000],
    ] as const)
      for (const fit of [{ mode: 'crop' }, { mode: 'pad', background: 'blur' }] as const) {
        const size = fittedSize(w, h, FEED, fit);
        expect(size.width / size.height, `${w}x${h} ${fit.mode}`).toBeGreaterThanOrEqual(0.8);
        expect(size.width / size.height, `${w}x${h} ${fit.mode}`).toBeLessThanOrEqual(1.91);
        expect(size.width).toBeLessThanOrEqual(1440);
      }
  });
});
