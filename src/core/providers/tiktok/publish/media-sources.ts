import type { Readable } from 'node:stream';
import type { CoreDeps } from '../../../context.js';
import type { MediaDoc } from '../../../media/documents.js';
import { AppError } from '../../../errors.js';
import { readImageSize } from '../../../media/preview.js';
import { ensureRendition, renderFittingJpeg, renditionUrlOf, type JpegFit } from '../../../media/renditions.js';
import { publicUrlOf } from '../../../media/view.js';

/**
 * What TikTok takes as a photo (contract 4.4, docs/decisions.md): JPEG or WebP, "1080p" read as shorter side
 * ≤ 1080 and longer side ≤ 1920, at most 20 MB (binary, like every TikTok "MB").
 */
export const TIKTOK_PHOTO_FIT: JpegFit = { shortSide: 1080, longSide: 1920, maxBytes: 20 * 1024 * 1024 };

const TIKTOK_PHOTO_TYPES = new Set(['image/jpeg', 'image/webp']);

/**
 * The URLs TikTok pulls the photos from (PULL_FROM_URL), in order: an image TikTok takes as it is keeps its
 * public URL; any other is sent as a JPEG scaled to fit 1080×1920, made once, stored, and served under the
 * media's public URL (`…/tiktok.jpg`, same token, no redirect since TikTok follows none).
 */
export async function photoUrlsForTikTok(deps: CoreDeps, media: MediaDoc[]): Promise<string[]> {
  const urls: string[] = [];
  // One at a time: each rendition decodes a whole image, and the machine may be small.
  for (const doc of media) {
    requireReady(doc, 'image');
    if (await fitsTikTok(deps, doc)) {
      urls.push(publicUrlOf(doc, deps.media.publicBaseUrl));
      continue;
    }
    await ensureRendition(deps, doc, 'tiktok', (source) => renderFittingJpeg(source, TIKTOK_PHOTO_FIT));
    urls.push(renditionUrlOf(doc, 'tiktok', deps.media.publicBaseUrl));
  }
  return urls;
}

/** A video's bytes for FILE_UPLOAD: its size and type, and any inclusive byte range streamed from the store. */
export interface VideoSource {
  size: number;
  mimeType: string;
  open(start: number, end: number): Promise<Readable>;
}

/** Streams a video's chunks straight from the media store (local or S3), so no chunk is buffered whole here. */
export function videoSourceFor(deps: CoreDeps, media: MediaDoc): VideoSource {
  requireReady(media, 'video');
  const size = media.size;
  if (size === null || size <= 0) throw new AppError('invalid_media_file', `Media ${media._id} has no bytes`);
  return {
    size,
    mimeType: media.mimeType,
    open(start, end) {
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end >= size) {
        return Promise.reject(new RangeError(`Byte range ${start}-${end} is outside 0-${size - 1}`));
      }
      return deps.media.store.get(media.storageKey, { start, end });
    },
  };
}

function requireReady(doc: MediaDoc, mediaType: 'image' | 'video'): void {
  if (doc.status !== 'READY') throw new AppError('invalid_media_file', `Media ${doc._id} is not ready`);
  if (doc.mediaType !== mediaType) {
    throw new AppError(
      'invalid_media_file',
      `Media ${doc._id} is not ${mediaType === 'image' ? 'an image' : 'a video'}`,
    );
  }
}

/** Whether TikTok takes the stored image as it is: its type, its size in bytes and its pixel size. */
async function fitsTikTok(deps: CoreDeps, doc: MediaDoc): Promise<boolean> {
  if (!TIKTOK_PHOTO_TYPES.has(doc.mimeType)) return false;
  if (doc.size === null || doc.size > TIKTOK_PHOTO_FIT.maxBytes) return false;
  const { width, height } = await dimensionsOf(deps, doc);
  return Math.min(width, height) <= TIKTOK_PHOTO_FIT.shortSide && Math.max(width, height) <= TIKTOK_PHOTO_FIT.longSide;
}

/**
 * The pixel size recorded at upload, or read from the stored header for media made otherwise (no pixel
 * decoded; more than the pixel cap is `invalid_media_file`).
 */
async function dimensionsOf(deps: CoreDeps, doc: MediaDoc): Promise<{ width: number; height: number }> {
  const { width, height } = doc.thumbnailMetadata ?? {};
  if (typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0) return { width, height };
  return readImageSize(deps.media.store, doc.storageKey);
}
