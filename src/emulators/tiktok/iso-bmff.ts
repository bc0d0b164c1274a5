import { open } from 'node:fs/promises';

/** Width, height, duration and frame rate of the first video track of an MP4/MOV file. */
export interface VideoFacts {
  width: number;
  height: number;
  durationSec: number;
  fps: number;
}

/** A moov larger than this is refused: real ones are a few MB even for ten-minute videos. */
const MAX_MOOV_BYTES = 64 * 1024 * 1024;

/**
 * Reads the facts TikTok checks from an ISO-BMFF file (MP4 and QuickTime share the box format) without loading
 * the media data: walks the top-level box headers on disk, reads only `moov`, and parses mvhd, then in the
 * first `vide` track tkhd (display size), mdhd (timescale) and stts (sample durations). Null when any is missing.
 */
export async function readVideoFacts(path: string): Promise<VideoFacts | null> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    let offset = 0;
    const header = Buffer.alloc(16);
    while (offset + 8 <= size) {
      const { bytesRead } = await file.read(header, 0, 16, offset);
      if (bytesRead < 8) return null;
      let boxSize = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      let headerSize = 8;
      if (boxSize === 1) {
        if (bytesRead < 16) return null;
        boxSize = Number(header.readBigUInt64BE(8));
        headerSize = 16;
      } else if (boxSize === 0) {
        boxSize = size - offset;
      }
      if (boxSize < headerSize) return null;
      if (type === 'moov') {
        const length = boxSize - headerSize;
        if (length > MAX_MOOV_BYTES || offset + boxSize > size) return null;
        const moov = Buffer.alloc(length);
        await file.read(moov, 0, length, offset + headerSize);
        return parseMoov(moov);
      }
      offset += boxSize;
    }
    return null;
  } finally {
    await file.close();
  }
}

/** The child boxes of a container's body, as [type, body] pairs. */
function children(body: Buffer): [string, Buffer][] {
  const boxes: [string, Buffer][] = [];
  let offset = 0;
  while (offset + 8 <= body.length) {
    let size = body.readUInt32BE(offset);
    let headerSize = 8;
    if (size === 1 && offset + 16 <= body.length) {
      size = Number(body.readBigUInt64BE(offset + 8));
      headerSize = 16;
    } else if (size === 0) {
      size = body.length - offset;
    }
    if (size < headerSize || offset + size > body.length) break;
    boxes.push([body.toString('latin1', offset + 4, offset + 8), body.subarray(offset + headerSize, offset + size)]);
    offset += size;
  }
  return boxes;
}

function child(body: Buffer, type: string): Buffer | undefined {
  return children(body).find(([t]) => t === type)?.[1];
}

/** timescale and duration of an mvhd or mdhd body (version 0: 32-bit times; version 1: 64-bit). */
function timing(body: Buffer): { timescale: number; duration: number } | null {
  const v1 = body[0] === 1;
  if (body.length < (v1 ? 32 : 20)) return null;
  return v1
    ? { timescale: body.readUInt32BE(20), duration: Number(body.readBigUInt64BE(24)) }
    : { timescale: body.readUInt32BE(12), duration: body.readUInt32BE(16) };
}

function parseMoov(moov: Buffer): VideoFacts | null {
  const mvhdBody = child(moov, 'mvhd');
  const movie = mvhdBody && timing(mvhdBody);
  for (const [type, trak] of children(moov)) {
    if (type !== 'trak') continue;
    const mdia = child(trak, 'mdia');
    const hdlr = mdia && child(mdia, 'hdlr');
    if (!mdia || !hdlr || hdlr.toString('latin1', 8, 12) !== 'vide') continue;
    const tkhd = child(trak, 'tkhd');
    const mdhdBody = child(mdia, 'mdhd');
    const media = mdhdBody && timing(mdhdBody);
    const stbl = child(child(mdia, 'minf') ?? Buffer.alloc(0), 'stbl');
    const stts = stbl && child(stbl, 'stts');
    if (!tkhd || !media || !stts || media.timescale === 0) return null;
    // tkhd's width and height are 16.16 fixed point, after 76 (v0) or 88 (v1) bytes of other fields.
    const at = tkhd[0] === 1 ? 88 : 76;
    if (tkhd.length < at + 8) return null;
    const width = tkhd.readUInt32BE(at) / 65536;
    const height = tkhd.readUInt32BE(at + 4) / 65536;
    let samples = 0;
    let ticks = 0;
    const entries = stts.length >= 8 ? stts.readUInt32BE(4) : 0;
    for (let i = 0; i < entries && 8 + i * 8 + 8 <= stts.length; i += 1) {
      const count = stts.readUInt32BE(8 + i * 8);
      samples += count;
      ticks += count * stts.readUInt32BE(12 + i * 8);
    }
    const trackSec = ticks > 0 ? ticks / media.timescale : media.duration / media.timescale;
    const durationSec =
      movie && movie.timescale > 0 && movie.duration > 0 ? movie.duration / movie.timescale : trackSec;
    if (trackSec <= 0) return null;
    return { width, height, durationSec, fps: samples / trackSec };
  }
  return null;
}
