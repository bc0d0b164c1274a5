import type { Readable } from 'node:stream';
import sharp from 'sharp';
import { AppError } from '../errors.js';
import type { MediaStore, StoredObject } from './store.js';
import { newStorageKey } from './store.js';

/** Longest side of a preview image, in pixels. */
export const PREVIEW_MAX_SIDE = 512;

/**
 * The most pixels an image may have: 50 megapixels. Postdeck publishes photos of at most 1080×1920
 * and camera originals are well under this; a larger image (a compressed "bomb" of 16000×16000 is
 * 31 KB) is refused from its header before anything decodes it (docs/decisions.md, issue 32).
 */
export const MAX_IMAGE_PIXELS = 50_000_000;

/**
 * The options every decoding sharp instance takes: refuse more pixels than the cap (the header check
 * already did; this holds for any path that forgets it) and stop at the first corrupt-data error.
 */
export const DECODE_OPTIONS = Object.freeze({ limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' as const });

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
 * side. An image that sniffs right but cannot be decoded, or has more pixels than the cap, is
 * `invalid_media_file`, saying which. JPEG and WebP shrink while they load (`resize` lets sharp
 * decode at 1/2 to 1/8 scale), so no full-size pixel buffer is made; the caller holds a decode slot.
 */
export async function describeImage(store: MediaStore, storageKey: string): Promise<ImageFacts> {
  const { width, height } = await readImageSize(store, storageKey);
  const resizer = sharp(DECODE_OPTIONS)
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
 * read, or has more pixels than MAX_IMAGE_PIXELS, is `invalid_media_file`, saying which, before any
 * decoding is tried. Needs no decode slot: no pixel is decoded.
 */
export async function readImageSize(store: MediaStore, storageKey: string): Promise<{ width: number; height: number }> {
  let width: number | undefined;
  let height: number | undefined;
  try {
    // Header only (no pixel is decoded), whatever the size: the check below explains a refusal better than sharp can.
    const meta = await (await store.get(storageKey)).pipe(sharp({ limitInputPixels: false })).metadata();
    ({ width, height } = meta);
  } catch {
    throw new AppError('invalid_media_file', 'The image could not be decoded');
  }
  if (!width || !height) throw new AppError('invalid_media_file', 'The image has no dimensions');
  requireWithinPixelCap(width, height);
  return { width, height };
}

/** Refuses an image whose header declares more pixels than MAX_IMAGE_PIXELS (`invalid_media_file`, naming both). */
export function requireWithinPixelCap(width: number, height: number): void {
  if (width * height <= MAX_IMAGE_PIXELS) return;
  throw new AppError(
    'invalid_media_file',
    `The image is too large: ${width}×${height} is ${megapixels(width * height)} megapixels, and Postdeck reads images of up to ${megapixels(MAX_IMAGE_PIXELS)} megapixels.`,
  );
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
