import { Readable } from 'node:stream';
import sharp, { type OutputInfo } from 'sharp';
import type { CoreDeps } from '../context.js';
import type { MediaDoc, MediaRenditionDoc, MediaRenditionKind } from './documents.js';
import { AppError, isDuplicateKeyError, notFound } from '../errors.js';
import { TRANSPARENCY_BACKGROUND } from './convert-png.js';
import { DECODE_OPTIONS } from './preview.js';
import { newStorageKey, type MediaStore } from './store.js';
import { publicUrlOf } from './view.js';

/** Every rendition kind, so deleting a media object can remove them all. */
export const RENDITION_KINDS: readonly MediaRenditionKind[] = ['tiktok'];

/** The box an image must fit in either orientation, and the byte budget of the encoded JPEG. */
export interface JpegFit {
  shortSide: number;
  longSide: number;
  maxBytes: number;
}

/** Qualities tried in turn until the JPEG fits the byte budget (the first almost always does). */
const QUALITIES = [90, 80, 70, 60, 50, 40];

/** A JPEG rendered to fit: its bytes, pixel size and the quality it took. */
export interface FittedJpeg {
  bytes: Buffer;
  width: number;
  height: number;
  quality: number;
}

/**
 * Decodes `source` once, applies its EXIF orientation, scales it to fit `fit` (shorter side ≤ shortSide, longer
 * ≤ longSide, aspect kept, never enlarged), puts transparency on white, and encodes a metadata-free sRGB JPEG
 * at quality 90, lower steps only when needed to stay within `maxBytes`.
 */
export async function renderFittingJpeg(source: Readable, fit: JpegFit): Promise<FittedJpeg> {
  let pixels: { data: Buffer; info: OutputInfo };
  try {
    // At most MAX_IMAGE_PIXELS, and JPEG and WebP shrink while they load: only the fitted size is held.
    const image = sharp(DECODE_OPTIONS);
    source.once('error', (error) => image.destroy(error));
    source.pipe(image);
    const { width = 0, height = 0 } = (await image.metadata()).autoOrient;
    // The box in the image's own orientation: landscape long × short, portrait short × long.
    const box = width >= height ? [fit.longSide, fit.shortSide] : [fit.shortSide, fit.longSide];
    pixels = await image
      .rotate()
      .resize({ width: box[0], height: box[1], fit: 'inside', withoutEnlargement: true })
      .flatten({ background: TRANSPARENCY_BACKGROUND })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw new AppError('invalid_media_file', 'The image could not be decoded');
  }
  const { width, height, channels } = pixels.info;
  for (const quality of QUALITIES) {
    const bytes = await sharp(pixels.data, { raw: { width, height, channels } }).jpeg({ quality }).toBuffer();
    if (bytes.length <= fit.maxBytes) return { bytes, width, height, quality };
  }
  throw new AppError('invalid_media_file', `The image cannot be made into a JPEG of at most ${fit.maxBytes} bytes`);
}

/** The public URL of a rendition: under the media's own URL, so the same token opens it. */
export function renditionUrlOf(
  doc: Pick<MediaDoc, '_id' | 'publicToken'>,
  kind: MediaRenditionKind,
  baseUrl: string,
): string {
  return `${publicUrlOf(doc, baseUrl)}/${RENDITION_PATHS[kind]}`;
}

/** The last path segment each kind is served under. */
export const RENDITION_PATHS: Readonly<Record<MediaRenditionKind, string>> = { tiktok: 'tiktok.jpg' };

/** The `_id` of a media object's rendition of `kind`. */
export function renditionId(mediaId: string, kind: MediaRenditionKind): string {
  return `${mediaId}#${kind}`;
}

/**
 * The media object's rendition of `kind`, made with `render` and stored once. Workers racing to make it each
 * store their bytes, the first insert of the `_id` wins and the others delete their own bytes and use the
 * winner's. If the media was deleted meanwhile, the rendition is removed again and the media is not found.
 */
export async function ensureRendition(
  deps: CoreDeps,
  media: MediaDoc,
  kind: MediaRenditionKind,
  render: (source: Readable) => Promise<FittedJpeg>,
): Promise<MediaRenditionDoc> {
  const _id = renditionId(media._id, kind);
  const existing = await deps.db.mediaRenditions.findOne({ _id });
  if (existing) return existing;

  // A caller may hold a document deleted since: its bytes are gone too, so say what happened.
  if (!(await mediaExists(deps, media._id))) throw notFound('Media');
  const store = deps.media.store;
  // Renditions are made for publishing, a job: it waits for a decode slot rather than failing.
  const fitted = await deps.media.decodes.run(async () => render(await store.get(media.storageKey)), 'wait');
  const storageKey = newStorageKey();
  const stored = await store.put(storageKey, Readable.from([fitted.bytes]));
  const doc: MediaRenditionDoc = {
    _id,
    mediaId: media._id,
    workspaceId: media.workspaceId,
    kind,
    storageKey,
    mimeType: 'image/jpeg',
    size: stored.size,
    sha256: stored.sha256,
    width: fitted.width,
    height: fitted.height,
    createdAt: deps.now(),
  };
  try {
    await deps.db.mediaRenditions.insertOne(doc);
  } catch (error) {
    await store.delete(storageKey);
    if (!isDuplicateKeyError(error)) throw error;
    const winner = await deps.db.mediaRenditions.findOne({ _id });
    if (!winner) throw notFound('Media');
    return winner;
  }
  // deleteMedia removes the media doc before it looks for renditions: one of the two sides sees the other.
  if (!(await mediaExists(deps, media._id))) {
    await deleteRendition(deps, store, media._id, kind);
    throw notFound('Media');
  }
  return doc;
}

async function mediaExists(deps: CoreDeps, mediaId: string): Promise<boolean> {
  return (await deps.db.media.findOne({ _id: mediaId }, { projection: { _id: 1 } })) !== null;
}

/** Removes every rendition of a media object, record first (its URL stops working), then bytes. */
export async function deleteRenditions(deps: CoreDeps, store: MediaStore, mediaId: string): Promise<void> {
  for (const kind of RENDITION_KINDS) await deleteRendition(deps, store, mediaId, kind);
}

async function deleteRendition(
  deps: CoreDeps,
  store: MediaStore,
  mediaId: string,
  kind: MediaRenditionKind,
): Promise<void> {
  const _id = renditionId(mediaId, kind);
  const doc = await deps.db.mediaRenditions.findOne({ _id });
  if (!doc) return;
  await deps.db.mediaRenditions.deleteOne({ _id });
  await store.delete(doc.storageKey);
}
