/** The format a file's first bytes name, as Meta's refusal words it (`jpeg`, `png`, ...), or `unknown`. */
export function imageFormatOf(bytes: Buffer): string {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (bytes.toString('latin1', 0, 3) === 'GIF') return 'gif';
  if (bytes.toString('latin1', 4, 8) === 'ftyp') return 'heif';
  return 'unknown';
}

/**
 * Width and height from a JPEG's frame header: walks the marker segments to the first SOFn (C0-CF but C4
 * DHT, C8 JPG and CC DAC). Null when the file ends first, so a truncated or fake JPEG is not taken for an image.
 */
export function jpegSize(bytes: Buffer): { width: number; height: number } | null {
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1] ?? 0;
    // Fill bytes and stand-alone markers (RSTn, TEM) carry no length.
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      offset += 2;
      continue;
    }
    const length = bytes.readUInt16BE(offset + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (offset + 9 > bytes.length) return null;
      const height = bytes.readUInt16BE(offset + 5);
      const width = bytes.readUInt16BE(offset + 7);
      return width > 0 && height > 0 ? { width, height } : null;
    }
    if (marker === 0xda || length < 2) return null;
    offset += 2 + length;
  }
  return null;
}
