/**
 * The types an upload may be: the spec's (section 4, media upload) and PNG, which is never stored
 * as it came but converted to a type TikTok takes (`convert-png.ts`).
 */
export const MEDIA_MIME_TYPES = [
  'image/jpeg',
  'image/webp',
  'image/png',
  'video/mp4',
  'video/webm',
  'video/quicktime',
] as const;

export type MediaMimeType = (typeof MEDIA_MIME_TYPES)[number];

/** What a refused file is told: every type accepted, in words. */
export const ACCEPTED_TYPES_TEXT =
  'a JPEG, WebP or PNG image (a PNG is stored as JPEG) or an MP4, WebM or QuickTime video';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** How many leading bytes `sniffMimeType` wants to see (fewer only when the file is shorter). */
export const SNIFF_BYTES = 64;

// ISO base media brands that mean an MP4 video; HEIF (`heic`, `mif1`) and audio (`M4A `) share the box.
const MP4_BRANDS = new Set(['isom', 'iso2', 'iso4', 'iso5', 'iso6', 'mp41', 'mp42', 'avc1', 'M4V ', 'dash', 'mmp4']);

/**
 * Decides a file's type from its first bytes, never from its name or a declared type: JPEG
 * (FF D8 FF), WebP (RIFF....WEBP), PNG (its 8-byte signature), MP4 and QuickTime (an `ftyp` box
 * and its major brand) and WebM (EBML with DocType `webm`). Anything else is `undefined`.
 */
export function sniffMimeType(head: Buffer): MediaMimeType | undefined {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (head.length >= 12 && ascii(head, 4, 8) === 'ftyp') {
    const brand = ascii(head, 8, 12);
    if (brand === 'qt  ') return 'video/quicktime';
    if (MP4_BRANDS.has(brand)) return 'video/mp4';
    return undefined;
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3 && head.includes('webm', 4, 'latin1')) {
    return 'video/webm';
  }
  return undefined;
}

/** `image` or `video` for a supported MIME type. */
export function mediaTypeOf(mimeType: MediaMimeType): 'image' | 'video' {
  return mimeType.startsWith('image/') ? 'image' : 'video';
}

function ascii(buffer: Buffer, start: number, end: number): string {
  return buffer.toString('latin1', start, end);
}
