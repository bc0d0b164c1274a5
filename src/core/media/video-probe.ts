import type { Readable } from 'node:stream';
import type { MediaStore } from './store.js';

/** What Postdeck knows of a video; each field is null when the file does not say it readably. */
export interface VideoFacts {
  width: number | null;
  height: number | null;
  durationSec: number | null;
  fps: number | null;
}

/** Reads `length` bytes at `offset` (fewer at the end of the file). */
export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

export const UNKNOWN_VIDEO: Readonly<VideoFacts> = Object.freeze({
  width: null,
  height: null,
  durationSec: null,
  fps: null,
});

// The first read; it usually holds ftyp and, in a "fast start" file, the whole moov.
const HEAD_BYTES = 64 * 1024;
// A moov past this is not a file we can describe cheaply (it is ~12 bytes per frame at worst).
const MAX_MOOV_BYTES = 64 * 1024 * 1024;
const MAX_TOP_LEVEL_BOXES = 1000;

/**
 * Reads a stored video's facts without reading the file: MP4 and QuickTime (ISO-BMFF) by walking
 * the top-level boxes, skipping `mdat`, and reading `moov` alone, wherever it is. WebM is not read
 * (see decisions): its facts are null. Damaged or truncated files give nulls, never an error.
 */
export async function probeStoredVideo(
  store: MediaStore,
  storageKey: string,
  size: number,
  mimeType: string,
): Promise<VideoFacts> {
  if (mimeType !== 'video/mp4' && mimeType !== 'video/quicktime') return { ...UNKNOWN_VIDEO };
  return probeIsoBmff(storeReader(store, storageKey, size), size);
}

/** A `ReadAt` over one stored object, with range reads (local file or S3 GetObject with Range). */
export function storeReader(store: MediaStore, storageKey: string, size: number): ReadAt {
  return async (offset, length) => {
    const end = Math.min(offset + length, size) - 1;
    if (end < offset) return Buffer.alloc(0);
    return collect(await store.get(storageKey, { start: offset, end }));
  };
}

/** The facts of an ISO-BMFF file of `size` bytes read through `readAt`. */
export async function probeIsoBmff(readAt: ReadAt, size: number): Promise<VideoFacts> {
  const head = await readAt(0, Math.min(HEAD_BYTES, size));
  const read = (offset: number, length: number): Promise<Buffer> =>
    offset + length <= head.length ? Promise.resolve(head.subarray(offset, offset + length)) : readAt(offset, length);

  let offset = 0;
  for (let count = 0; count < MAX_TOP_LEVEL_BOXES && offset + 8 <= size; count += 1) {
    const header = await read(offset, 16);
    if (header.length < 8) break;
    let boxSize = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    let headerSize = 8;
    if (boxSize === 1) {
      if (header.length < 16) break;
      boxSize = Number(header.readBigUInt64BE(8));
      headerSize = 16;
    } else if (boxSize === 0) {
      boxSize = size - offset;
    }
    if (boxSize < headerSize) break;
    if (type === 'moov') {
      if (boxSize > MAX_MOOV_BYTES || offset + boxSize > size) break;
      const moov = await read(offset, boxSize);
      return describeMoov(moov.subarray(headerSize));
    }
    offset += boxSize;
  }
  return { ...UNKNOWN_VIDEO };
}

interface Box {
  type: string;
  body: Buffer;
}

/** The child boxes of a container body; a box running past its parent ends the list. */
function children(body: Buffer): Box[] {
  const boxes: Box[] = [];
  let offset = 0;
  while (offset + 8 <= body.length) {
    let boxSize = body.readUInt32BE(offset);
    let headerSize = 8;
    if (boxSize === 1) {
      if (offset + 16 > body.length) break;
      boxSize = Number(body.readBigUInt64BE(offset + 8));
      headerSize = 16;
    } else if (boxSize === 0) {
      boxSize = body.length - offset;
    }
    if (boxSize < headerSize || offset + boxSize > body.length) break;
    boxes.push({
      type: body.toString('latin1', offset + 4, offset + 8),
      body: body.subarray(offset + headerSize, offset + boxSize),
    });
    offset += boxSize;
  }
  return boxes;
}

const child = (body: Buffer, type: string): Buffer | undefined => children(body).find((b) => b.type === type)?.body;

function describeMoov(moov: Buffer): VideoFacts {
  const facts: VideoFacts = { ...UNKNOWN_VIDEO };
  const mvhd = child(moov, 'mvhd');
  const movie = mvhd ? timing(mvhd) : null;
  // Fragmented files keep the total in mvex/mehd (in the movie's timescale) and leave mvhd at 0.
  const mehd = child(child(moov, 'mvex') ?? Buffer.alloc(0), 'mehd');
  const fragmentDuration = mehd && movie ? readVersioned(mehd, 4, 0) : null;
  const movieDuration = movie?.duration || fragmentDuration;
  if (movie && movieDuration) facts.durationSec = round3(movieDuration / movie.timescale);

  const track = children(moov)
    .filter((b) => b.type === 'trak')
    .map((b) => b.body)
    .find((trak) => handlerOf(trak) === 'vide');
  if (!track) return facts;
  const mdia = child(track, 'mdia') ?? Buffer.alloc(0);
  const stbl = child(child(mdia, 'minf') ?? Buffer.alloc(0), 'stbl') ?? Buffer.alloc(0);
  const size = trackSize(track) ?? sampleEntrySize(stbl);
  if (size) {
    facts.width = size.width;
    facts.height = size.height;
  }
  const mdhd = child(mdia, 'mdhd');
  const media = mdhd ? timing(mdhd) : null;
  if (facts.durationSec === null && media?.duration) facts.durationSec = round3(media.duration / media.timescale);
  const stts = child(stbl, 'stts');
  if (media && stts) facts.fps = frameRate(stts, media.timescale);
  return facts;
}

/** timescale and duration of an mvhd or mdhd body (version 0: 32-bit times, 1: 64-bit). */
function timing(body: Buffer): { timescale: number; duration: number } | null {
  const version = body[0];
  const at = version === 1 ? 20 : 12;
  if (body.length < at + (version === 1 ? 12 : 8)) return null;
  const timescale = body.readUInt32BE(at);
  const duration = version === 1 ? Number(body.readBigUInt64BE(at + 4)) : body.readUInt32BE(at + 4);
  // All ones means "unknown" in both versions.
  if (timescale === 0 || duration === 0xffffffff || duration >= Number.MAX_SAFE_INTEGER) return null;
  return { timescale, duration };
}

function readVersioned(body: Buffer, v0At: number, v1At: number): number | null {
  if (body[0] === 1) return body.length >= 4 + v1At + 8 ? Number(body.readBigUInt64BE(4 + v1At)) : null;
  return body.length >= v0At + 4 ? body.readUInt32BE(v0At) : null;
}

function handlerOf(trak: Buffer): string | undefined {
  const hdlr = child(child(trak, 'mdia') ?? Buffer.alloc(0), 'hdlr');
  return hdlr && hdlr.length >= 12 ? hdlr.toString('latin1', 8, 12) : undefined;
}

/** The displayed size from tkhd (16.16 fixed point), turned when the matrix rotates by 90°. */
function trackSize(trak: Buffer): { width: number; height: number } | null {
  const tkhd = child(trak, 'tkhd');
  if (!tkhd) return null;
  const matrixAt = tkhd[0] === 1 ? 52 : 40;
  if (tkhd.length < matrixAt + 44) return null;
  const width = Math.round(tkhd.readUInt32BE(matrixAt + 36) / 65536);
  const height = Math.round(tkhd.readUInt32BE(matrixAt + 40) / 65536);
  if (!width || !height) return null;
  const a = tkhd.readInt32BE(matrixAt);
  const b = tkhd.readInt32BE(matrixAt + 4);
  return a === 0 && b !== 0 ? { width: height, height: width } : { width, height };
}

/** The coded size in the first visual sample entry of stsd (fallback when tkhd has none). */
function sampleEntrySize(stbl: Buffer): { width: number; height: number } | null {
  const stsd = child(stbl, 'stsd');
  const entry = stsd && stsd.length > 8 ? children(stsd.subarray(8))[0] : undefined;
  if (!entry || entry.body.length < 28) return null;
  const width = entry.body.readUInt16BE(24);
  const height = entry.body.readUInt16BE(26);
  return width && height ? { width, height } : null;
}

/** Average frames per second: samples over the summed sample durations of stts. */
function frameRate(stts: Buffer, timescale: number): number | null {
  if (stts.length < 8) return null;
  const entries = stts.readUInt32BE(4);
  let samples = 0;
  let ticks = 0;
  for (let i = 0; i < entries && 8 + i * 8 + 8 <= stts.length; i += 1) {
    const count = stts.readUInt32BE(8 + i * 8);
    samples += count;
    ticks += count * stts.readUInt32BE(12 + i * 8);
  }
  return samples > 0 && ticks > 0 ? round3((samples * timescale) / ticks) : null;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
