import { timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import type { CoreDeps } from '../context.js';
import type { MediaRenditionKind } from './documents.js';
import { notFound } from '../errors.js';
import type { MediaDeps } from './deps.js';
import { videoPlaceholder } from './preview.js';
import { renditionId } from './renditions.js';
import type { ByteRange } from './store.js';

/** Which bytes a public URL names: the upload, its preview, or a rendition made for publishing. */
export type PublicVariant = 'original' | 'preview' | MediaRenditionKind;

/** What the public URL serves: the bytes' length, type and strong validator, and a reader. */
export interface PublicContent {
  size: number;
  mimeType: string;
  etag: string;
  open(range?: ByteRange): Promise<Readable>;
}

/**
 * Resolves a public (or preview) URL without any API key: the id finds the document and the
 * 128-bit token, compared in constant time, proves the link was handed out. Wrong tokens,
 * missing and unfinished media all look the same.
 */
export async function openPublicContent(
  deps: CoreDeps,
  media: MediaDeps,
  id: string,
  token: string,
  variant: PublicVariant,
): Promise<PublicContent> {
  const doc = await deps.db.media.findOne({ _id: id });
  if (!doc || doc.status !== 'READY' || !sameToken(doc.publicToken, token)) throw notFound('Media');
  if (variant === 'original') {
    return {
      size: doc.size ?? 0,
      mimeType: doc.mimeType,
      etag: `"${doc.sha256}"`,
      open: (range) => media.store.get(doc.storageKey, range),
    };
  }
  if (variant !== 'preview') {
    // Renditions exist once publishing made them; until then (and for other media) the URL is not found.
    const rendition = await deps.db.mediaRenditions.findOne({ _id: renditionId(doc._id, variant) });
    if (!rendition) throw notFound('Media');
    const { storageKey, size, mimeType, sha256 } = rendition;
    return { size, mimeType, etag: `"${sha256}"`, open: (range) => media.store.get(storageKey, range) };
  }
  if (doc.preview) {
    const { storageKey, size, mimeType, sha256 } = doc.preview;
    return { size, mimeType, etag: `"${sha256}"`, open: (range) => media.store.get(storageKey, range) };
  }
  const bytes = await videoPlaceholder();
  return {
    size: bytes.length,
    mimeType: 'image/webp',
    etag: '"video-placeholder-1"',
    open: (range) => Promise.resolve(Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes])),
  };
}

function sameToken(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
