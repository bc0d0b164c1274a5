import { randomBytes } from 'node:crypto';

/** The parameters of a minimal MP4. */
export interface Mp4Spec {
  width?: number;
  height?: number;
  durationSec?: number;
  fps?: number;
  /** Bytes of (random) media data in `mdat`. */
  payloadBytes?: number;
  /** The ftyp major brand: `isom` is MP4, `qt  ` is QuickTime. */
  brand?: string;
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  return b;
}

// The unity matrix of tkhd and mvhd.
const MATRIX = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);

/**
 * The ftyp and moov boxes of a minimal but valid MP4 with one video track: mvhd (duration), trak/tkhd (width,
 * height), mdia/mdhd (timescale), hdlr `vide`, minf/stbl/stts (one entry: frame count × frame duration), so
 * duration and frame rate are computable as a real demuxer computes them.
 */
export function mp4Header(spec: Mp4Spec = {}): Buffer {
  const { width = 1080, height = 1920, durationSec = 10, fps = 30, brand = 'isom' } = spec;
  const timescale = 90_000;
  const frames = Math.round(durationSec * fps);
  const delta = Math.round(timescale / fps);
  const duration = frames * delta;
  const movieTimescale = 1000;
  const ftyp = box('ftyp', Buffer.from(brand, 'latin1'), u32(0x200), Buffer.from('isommp41', 'latin1'));
  const mvhd = box(
    'mvhd',
    u32(0, 0, 0, movieTimescale, Math.round((duration / timescale) * movieTimescale), 0x10000),
    Buffer.from([0x01, 0x00, 0, 0]),
    u32(0, 0),
    MATRIX,
    Buffer.alloc(24),
    u32(2),
  );
  const tkhd = box(
    'tkhd',
    u32(0x00000003, 0, 0, 1, 0, Math.round((duration / timescale) * movieTimescale)),
    u32(0, 0),
    Buffer.alloc(8),
    MATRIX,
    u32(width * 0x10000, height * 0x10000),
  );
  const mdhd = box('mdhd', u32(0, 0, 0, timescale, duration), Buffer.from([0x55, 0xc4, 0, 0]));
  const hdlr = box(
    'hdlr',
    u32(0, 0),
    Buffer.from('vide', 'latin1'),
    Buffer.alloc(12),
    Buffer.from('Video\0', 'latin1'),
  );
  const stts = box('stts', u32(0, 1, frames, delta));
  const stsd = box('stsd', u32(0, 0));
  const stbl = box('stbl', stsd, stts);
  const minf = box('minf', box('vmhd', u32(1), Buffer.alloc(8)), stbl);
  const trak = box('trak', tkhd, box('mdia', mdhd, hdlr, minf));
  return Buffer.concat([ftyp, box('moov', mvhd, trak)]);
}

/** A whole MP4: header boxes plus an `mdat` of `payloadBytes` random bytes. */
export function buildMp4(spec: Mp4Spec = {}): Buffer {
  const payload = spec.payloadBytes ?? 1024;
  const mdat = Buffer.alloc(8);
  mdat.writeUInt32BE(8 + payload, 0);
  mdat.write('mdat', 4, 'latin1');
  return Buffer.concat([mp4Header(spec), mdat, randomBytes(payload)]);
}

/** An MP4 of exactly `totalBytes` bytes (the mdat payload fills what the header leaves). */
export function buildMp4OfSize(totalBytes: number, spec: Omit<Mp4Spec, 'payloadBytes'> = {}): Buffer {
  const payloadBytes = totalBytes - mp4Header(spec).length - 8;
  if (payloadBytes < 0) throw new Error(`an MP4 cannot be ${totalBytes} bytes`);
  return buildMp4({ ...spec, payloadBytes });
}
