import type { Readable } from 'node:stream';
import sharp from 'sharp';
import { AppError } from '../errors.js';
import type { MediaStore, StoredObject } from './store.js';
import { newStorageKey } from './store.js';

/** Longest side of a preview image, in pixels. */
export const PREVIEW_MAX_SIDE = 512;

/** The most pixels an image may have: sharp's own decoding limit (about 16383 × 16383). */
export const MAX_IMAGE_PIXELS = 268_402_689;

/**
 * The previews' WebP: effort 2 of 6 encodes in about half the CPU of the default 4 for a few percent
 * more bytes, and every image Postdeck stores (each slide of a generation job among them) gets one.
 */
export const PREVIEW_WEBP = Object.freeze({ quality: 80, effort: 2 });

/** An image's size plus its stored preview. */
export interface ImageFacts {
  width: number;
  height: number;
  preview: StoredObject & { storageKey: string; mimeType: 'image/webp' };
}

/**
 * Reads the stored image's dimensions and stores a WebP preview at most 512 px on its longest
 * side. An image that sniffs right but cannot be decoded, or is larger than sharp decodes, is
 * `invalid_media_file`, saying which.
 */
export async function describeImage(store: MediaStore, storageKey: string): Promise<ImageFacts> {
  const { width, height } = await readImageSize(store, storageKey);
  const resizer = sharp()
    .rotate()
    .resize(PREVIEW_MAX_SIDE, PREVIEW_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .webp(PREVIEW_WEBP);
  const previewKey = newStorageKey();
  const source: Readable = (await store.get(storageKey)).pipe(resizer);
  try {
    const stored = await store.put(previewKey, source);
    return { width, height, preview: { ...stored, storageKey: previewKey, mimeType: 'image/webp' } };
  } catch {
    await store.delete(previewKey);
    throw new AppError('invalid_media_file', 'The image could not be decoded');
  }
}

/**
 * The stored image's width and height from its header, whatever its size; an image that cannot be
 * read, or has more pixels than sharp decodes, is `invalid_media_file`, saying which, before any
 * decoding is tried.
 */
export async function readImageSize(store: MediaStore, storageKey: string): Promise<{ width: number; height: number }> {
  let width: number | undefined;
  let height: number | undefined;
  try {
    // Header only, whatever the size: the size check below explains a refusal better than sharp can.
    const meta = await (await store.get(storageKey)).pipe(sharp({ limitInputPixels: false })).metadata();
    ({ width, height } = meta);
  } catch {
    throw new AppError('invalid_media_file', 'The image could not be decoded');
  }
  if (!width || !height) throw new AppError('invalid_media_file', 'The image has no dimensions');
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new AppError(
      'invalid_media_file',
      `The image is too large: ${width}×${height} is ${megapixels(width * height)} megapixels, and Postdeck reads images of up to ${megapixels(MAX_IMAGE_PIXELS)} megapixels.`,
    );
  }
  return { width, height };
}

function megapixels(pixels: number): number {
  return Math.round(pixels / 1_000_000);
}

let placeholder: Promise<Buffer> | undefined;

/**
 * The preview served for videos: no frame grabber (ffmpeg) ships with Postdeck, so every video
 * gets the same generated picture, a play symbol on a dark square. Made once per process.
 */
export function videoPlaceholder(): Promise<Buffer> {
  placeholder ??= sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512">` +
        `<rect width="512" height="512" fill="#1f2430"/>` +
        `<circle cx="256" cy="230" r="110" fill="#3a4254"/>` +
        `<polygon points="220,170 220,290 320,230" fill="#f2f4f8"/>` +
        `<text x="256" y="420" font-family="sans-serif" font-size="48" fill="#f2f4f8" text-anchor="middle">video</text>` +
        `</svg>`,
    ),
  )
    .webp({ quality: 80 })
    .toBuffer();
  return placeholder;
}
