import sharp from 'sharp';
import { AppError } from '../errors.js';
import type { MediaDeps } from './deps.js';
import type { IngestedFile } from './ingest.js';
import { DECODE_OPTIONS } from './preview.js';
import { newStorageKey } from './store.js';

/**
 * What transparency becomes wherever Postdeck flattens an image (a PNG stored as JPEG, a slide
 * drawn on an image with an alpha channel, the JPEG sent to TikTok): white, as a browser or a
 * document shows it, so dark lines, text and logos drawn on nothing stay visible (docs/decisions.md).
 */
export const TRANSPARENCY_BACKGROUND = '#ffffff';

/**
 * The JPEG a PNG becomes: quality 95 with full-resolution colour (4:4:4), so screenshot text and
 * thin coloured lines stay as sharp as in the PNG; TikTok takes JPEG and WebP, not PNG.
 */
export const CONVERTED_JPEG = Object.freeze({ quality: 95, chromaSubsampling: '4:4:4' });

/**
 * The most pixels whose JPEG gets optimised Huffman tables: libjpeg keeps every DCT coefficient of the
 * image for that second pass (about 12 bytes a pixel at 4:4:4, 573 MB for a 49 MP PNG), so a larger
 * image is encoded in one pass, row by row, for a few percent more bytes.
 */
export const OPTIMISED_CODING_MAX_PIXELS = 4_000_000;

/** An ingested file as it will be stored, and the type it was uploaded as when it was converted. */
export type StorableFile = IngestedFile & { convertedFrom: 'image/png' | null };

/**
 * Makes an ingested file storable as it is: a PNG is converted to JPEG in the store (upright,
 * transparency on white, colours in sRGB) and its bytes replaced by the JPEG's; anything else is
 * kept. An image too large or broken to decode is `invalid_media_file`; on any failure nothing
 * new stays in the store (the caller still owns and discards the ingested bytes). The caller has
 * checked the pixel cap from the header (`pixels` is the image's) and holds a decode slot. libvips
 * reads the PNG in sequence (sharp's default access) and, past OPTIMISED_CODING_MAX_PIXELS, writes
 * the JPEG as rows arrive, so a large image is never held whole (an EXIF rotation still needs it).
 */
export async function makeStorable(media: MediaDeps, file: IngestedFile, pixels: number): Promise<StorableFile> {
  if (file.mimeType !== 'image/png') return { ...file, convertedFrom: null };
  const storageKey = newStorageKey();
  const converter = sharp(DECODE_OPTIONS)
    .rotate()
    .flatten({ background: TRANSPARENCY_BACKGROUND })
    .toColourspace('srgb')
    .jpeg({ ...CONVERTED_JPEG, optimiseCoding: pixels <= OPTIMISED_CODING_MAX_PIXELS });
  let stored: { size: number; sha256: string };
  try {
    const source = await media.store.get(file.storageKey);
    source.once('error', (error) => converter.destroy(error));
    stored = await media.store.put(storageKey, source.pipe(converter));
  } catch {
    await media.store.delete(storageKey);
    throw new AppError('invalid_media_file', 'The PNG could not be decoded');
  }
  await media.store.delete(file.storageKey);
  return { storageKey, mimeType: 'image/jpeg', size: stored.size, sha256: stored.sha256, convertedFrom: 'image/png' };
}
