import { crc32, deflateSync } from 'node:zlib';

/**
 * A valid 1-bit greyscale PNG of `width` × `height` white pixels, written directly (IHDR, one
 * deflated IDAT, IEND): 16000×16000 deflates to about 31 KB, the "image bomb" of issue 32, in well
 * under a second where an encoder would take many.
 */
export function pngBomb(width = 16_000, height = 16_000): Buffer {
  const rowBytes = 1 + Math.ceil(width / 8); // filter byte 0, then the row's bits
  const row = Buffer.alloc(rowBytes, 0xff);
  row[0] = 0;
  const raw = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y++) row.copy(raw, y * rowBytes);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(1, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
