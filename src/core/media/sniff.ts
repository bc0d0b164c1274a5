/** The media types the spec accepts (section 4, media upload). */
export const MEDIA_MIME_TYPES = ['image/jpeg', 'image/webp', 'video/mp4', 'video/webm', 'video/quicktime'] as const;

export type MediaMimeType = (typeof MEDIA_MIME_TYPES)[number];

/** How many leading bytes `sniffMimeType` wants to see (fewer only when the file is shorter). */
export const SNIFF_BYTES = 64;

// ISO base media brands that mean an MP4 video; HEIF (`heic`, `mif1`) and audio (`M4A `) share the box.
const MP4_BRANDS = new Set(['isom', 'iso2', 'iso4', 'iso5', 'iso6', 'mp41', 'mp42', 'avc1', 'M4V ', 'dash', 'mmp4']);

/**
 * Decides a file's type from its first bytes, never from its name or a declared type: JPEG
 * (FF D8 FF), WebP (RIFF....WEBP), MP4 and QuickTime (an `ftyp` box and its major brand) and
 * WebM (EBML with DocType `webm`). Anything else, PNG included, is `undefined`.
 */
export function sniffMimeType(head: Buffer): MediaMimeType | undefined {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
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
