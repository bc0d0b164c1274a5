import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalMediaStore } from '../../src/core/media/local-store.js';
import { openMediaStore } from '../../src/core/media/open-store.js';
import type { MediaStore } from '../../src/core/media/store.js';
import { newStorageKey } from '../../src/core/media/store.js';
import { probeIsoBmff, probeStoredVideo, type ReadAt } from '../../src/core/media/video-probe.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { upload } from '../support/media.js';
import { buildMp4, mp4Header } from '../support/video.js';

// A minimal ISO-BMFF writer: just the boxes the probe reads, with a zero-filled mdat.
const u32 = (...values: number[]): Buffer => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeInt32BE(v | 0, i * 4));
  return b;
};
const u16 = (...values: number[]): Buffer => {
  const b = Buffer.alloc(2 * values.length);
  values.forEach((v, i) => b.writeUInt16BE(v, i * 2));
  return b;
};
function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}
const full = (type: string, version: number, ...parts: Buffer[]): Buffer => box(type, u32(version << 24), ...parts);

interface Mp4Options {
  width: number;
  height: number;
  durationSec: number;
  fps: number;
  moovLast?: boolean;
  mdatBytes?: number;
  /** 90° rotation matrix (a phone's portrait video stored landscape). */
  rotated?: boolean;
  /** Writes mvhd and mdhd as version 1 (64-bit times). */
  version1?: boolean;
  brand?: string;
}

function makeVideoMp4(o: Mp4Options): Buffer {
  const timescale = 90_000;
  const frames = Math.round(o.durationSec * o.fps);
  const delta = Math.round(timescale / o.fps);
  const identity = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);
  const rotation = u32(0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x40000000);
  const times = (scale: number, duration: number): Buffer =>
    o.version1 ? Buffer.concat([u32(0, 0, 0, 0, scale, 0), u32(duration)]) : u32(0, 0, scale, duration);
  const v = o.version1 ? 1 : 0;
  const mvhd = full(
    'mvhd',
    v,
    times(1000, Math.round(o.durationSec * 1000)),
    u32(0x10000),
    u16(0x100, 0),
    u32(0, 0),
    identity,
    Buffer.alloc(24),
    u32(2),
  );
  const tkhd = full(
    'tkhd',
    0,
    u32(0, 0, 1, 0, Math.round(o.durationSec * 1000), 0, 0),
    u16(0, 0, 0, 0),
    o.rotated ? rotation : identity,
    u32(o.width * 65536, o.height * 65536),
  );
  const mdhd = full('mdhd', v, times(timescale, frames * delta), u16(0x55c4, 0));
  const hdlr = full('hdlr', 0, u32(0), Buffer.from('vide'), u32(0, 0, 0), Buffer.from('VideoHandler\0'));
  const soun = full('hdlr', 0, u32(0), Buffer.from('soun'), u32(0, 0, 0), Buffer.from('SoundHandler\0'));
  const avc1 = box('avc1', Buffer.alloc(6), u16(1), Buffer.alloc(16), u16(o.width, o.height), Buffer.alloc(50));
  const stbl = box(
    'stbl',
    full('stsd', 0, u32(1), avc1),
    full('stts', 0, u32(1, frames, delta)),
    full('stsc', 0, u32(1, 1, frames, 1)),
  );
  const minf = box('minf', full('vmhd', 0, Buffer.alloc(8)), stbl);
  // An audio track first, so the probe has to pick the video one by its handler.
  const audio = box('trak', box('mdia', full('mdhd', 0, u32(0, 0, 48_000, 0), u16(0, 0)), soun));
  const moov = box('moov', mvhd, audio, box('trak', tkhd, box('mdia', mdhd, hdlr, minf)));
  const ftyp = box('ftyp', Buffer.from(o.brand ?? 'isom'), u32(512), Buffer.from('isomiso2avc1mp41'));
  const mdat = box('mdat', Buffer.alloc(o.mdatBytes ?? 4096));
  return Buffer.concat(o.moovLast ? [ftyp, mdat, moov] : [ftyp, moov, mdat]);
}

/** A ReadAt over a buffer that records every read, to prove mdat is skipped. */
function bufferReader(file: Buffer): { readAt: ReadAt; bytesRead: () => number; reads: [number, number][] } {
  const reads: [number, number][] = [];
  return {
    reads,
    readAt: (offset, length) => {
      reads.push([offset, length]);
      return Promise.resolve(file.subarray(offset, offset + length));
    },
    bytesRead: () => reads.reduce((sum, [offset, length]) => sum + Math.min(length, file.length - offset), 0),
  };
}

const PORTRAIT = { width: 1080, height: 1920, durationSec: 12.5, fps: 30 };

/** The shared test builder's file rearranged with moov after a large mdat (`ftyp`, `mdat`, `moov`). */
function moovLastFromSupport(spec: Parameters<typeof mp4Header>[0], mdatBytes: number): Buffer {
  const header = mp4Header(spec);
  const ftypLength = header.readUInt32BE(0);
  const mdat = box('mdat', Buffer.alloc(mdatBytes));
  return Buffer.concat([header.subarray(0, ftypLength), mdat, header.subarray(ftypLength)]);
}

describe('probeIsoBmff', () => {
  it('reads the shared test builder’s MP4, moov first and moov last', async () => {
    const spec = { width: 720, height: 1280, durationSec: 42, fps: 24 };
    const first = buildMp4({ ...spec, payloadBytes: 1_000_000 });
    const r1 = bufferReader(first);
    expect(await probeIsoBmff(r1.readAt, first.length)).toEqual(spec);
    expect(r1.bytesRead()).toBeLessThanOrEqual(64 * 1024);
    const last = moovLastFromSupport(spec, 3_000_000);
    const r2 = bufferReader(last);
    expect(await probeIsoBmff(r2.readAt, last.length)).toEqual(spec);
    expect(r2.bytesRead()).toBeLessThan(70 * 1024);
  });

  it('reads size, duration and frame rate with moov before mdat', async () => {
    const file = makeVideoMp4({ ...PORTRAIT, mdatBytes: 2_000_000 });
    const r = bufferReader(file);
    expect(await probeIsoBmff(r.readAt, file.length)).toEqual(PORTRAIT);
    expect(r.bytesRead()).toBeLessThanOrEqual(64 * 1024);
  });

  it('finds moov after a large mdat without reading the mdat', async () => {
    const file = makeVideoMp4({ ...PORTRAIT, moovLast: true, mdatBytes: 5_000_000 });
    const r = bufferReader(file);
    expect(await probeIsoBmff(r.readAt, file.length)).toEqual(PORTRAIT);
    expect(r.bytesRead()).toBeLessThan(70 * 1024);
    expect(r.reads.some(([offset]) => offset > 5_000_000)).toBe(true);
  });

  it('reads a 29.97 fps QuickTime file with version 1 (64-bit) headers', async () => {
    const file = makeVideoMp4({
      width: 640,
      height: 360,
      durationSec: 4,
      fps: 29.97,
      version1: true,
      brand: 'qt  ',
    });
    const r = bufferReader(file);
    expect(await probeIsoBmff(r.readAt, file.length)).toEqual({ width: 640, height: 360, durationSec: 4, fps: 29.97 });
  });

  it('turns the size of a video whose matrix rotates it by 90 degrees', async () => {
    const file = makeVideoMp4({ width: 1920, height: 1080, durationSec: 3, fps: 60, rotated: true });
    const r = bufferReader(file);
    expect(await probeIsoBmff(r.readAt, file.length)).toMatchObject({ width: 1080, height: 1920, fps: 60 });
  });

  it('follows a 64-bit (largesize) mdat header', async () => {
    const ftyp = box('ftyp', Buffer.from('isom'), u32(0));
    const payload = Buffer.alloc(100_000);
    const mdat = Buffer.concat([u32(1), Buffer.from('mdat'), u32(0, 16 + payload.length), payload]);
    const rest = makeVideoMp4({ ...PORTRAIT, moovLast: true, mdatBytes: 0 });
    const moov = rest.subarray(rest.indexOf('moov') - 4);
    const file = Buffer.concat([ftyp, mdat, moov]);
    expect(await probeIsoBmff(bufferReader(file).readAt, file.length)).toEqual(PORTRAIT);
  });

  it.each([
    ['cut in the middle of a trailing moov', (f: Buffer) => f.subarray(0, f.length - 200)],
    ['cut in the middle of the mdat (moov never arrives)', (f: Buffer) => f.subarray(0, 3000)],
    [
      'with a box claiming fewer than 8 bytes',
      (f: Buffer) => Buffer.concat([f.subarray(0, 32), u32(3), f.subarray(36)]),
    ],
  ])('gives nulls, not an error, for a file %s', async (_label, damage) => {
    const file = damage(makeVideoMp4({ ...PORTRAIT, moovLast: true, mdatBytes: 10_000 }));
    expect(await probeIsoBmff(bufferReader(file).readAt, file.length)).toEqual({
      width: null,
      height: null,
      durationSec: null,
      fps: null,
    });
  });

  it('keeps what it can read when the video track has no sample table', async () => {
    const file = makeVideoMp4(PORTRAIT);
    const damaged = Buffer.from(file);
    damaged.write('xxxx', damaged.indexOf('stts'), 'latin1');
    expect(await probeIsoBmff(bufferReader(damaged).readAt, damaged.length)).toEqual({ ...PORTRAIT, fps: null });
  });
});

describe('probeStoredVideo', () => {
  let dir: string;
  let store: MediaStore;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-probe-'));
    store = createLocalMediaStore(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function stored(bytes: Buffer): Promise<string> {
    const key = newStorageKey();
    await store.put(key, Readable.from([bytes]));
    return key;
  }

  it('reads a stored MP4 through range reads', async () => {
    const file = makeVideoMp4({ ...PORTRAIT, moovLast: true, mdatBytes: 300_000 });
    expect(await probeStoredVideo(store, await stored(file), file.length, 'video/mp4')).toEqual(PORTRAIT);
  });

  it('leaves a WebM unread (all null)', async () => {
    const head = Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84, ...Buffer.from('webm')]);
    const file = Buffer.concat([head, Buffer.alloc(500)]);
    expect(await probeStoredVideo(store, await stored(file), file.length, 'video/webm')).toEqual({
      width: null,
      height: null,
      durationSec: null,
      fps: null,
    });
  });
});

describe('probeStoredVideo on the S3 store', () => {
  let s3: S3rver;
  let s3Dir: string;
  let store: MediaStore;
  beforeAll(async () => {
    s3Dir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-probe-s3-'));
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: s3Dir,
      configureBuckets: [{ name: 'probe', configs: [] }],
    });
    const { port } = await s3.run();
    store = openMediaStore({
      kind: 's3',
      bucket: 'probe',
      prefix: 'media/',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
  });
  afterAll(async () => {
    await s3.close();
    await rm(s3Dir, { recursive: true, force: true });
  });

  it('reads a moov-last MP4 in a bucket through ranged GETs', async () => {
    const spec = { width: 1080, height: 1080, durationSec: 9, fps: 50 };
    const file = moovLastFromSupport(spec, 200_000);
    const key = newStorageKey();
    await store.put(key, Readable.from([file]));
    expect(await probeStoredVideo(store, key, file.length, 'video/mp4')).toEqual(spec);
  });
});

describe('POST /public/v1/media with a video', () => {
  let t: TestDatabase;
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    t = await openTestDatabase();
    server = await startTestServer(t);
    apiKey = (await buildTenant(t.deps)).apiKey;
  });
  afterAll(async () => {
    await server.stop();
    await t.close();
  });

  it('stores width, height, duration and frame rate as thumbnailMetadata', async () => {
    const file = moovLastFromSupport({ width: 720, height: 1280, durationSec: 61.2, fps: 25 }, 1_000_000);
    const response = await upload(server, apiKey, { bytes: file, name: 'clip.mp4' });
    expect(response.status).toBe(201);
    const media = (await response.json()) as { id: string };
    expect(media).toMatchObject({
      mediaType: 'video',
      mimeType: 'video/mp4',
      thumbnailMetadata: { width: 720, height: 1280, durationSec: 61.2, fps: 25 },
    });
    const doc = await t.deps.db.media.findOne({ _id: media.id });
    expect(doc?.thumbnailMetadata).toEqual({ width: 720, height: 1280, durationSec: 61.2, fps: 25 });
  });

  it('refuses, as invalid_media_file, a file that only starts like an MP4 (no duration, no video track)', async () => {
    const ftyp = box('ftyp', Buffer.from('isom'), u32(512));
    const before = await t.deps.db.media.countDocuments({});
    const response = await upload(server, apiKey, { bytes: Buffer.concat([ftyp, box('mdat', Buffer.alloc(1000))]) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe('invalid_media_file');
    expect(body.message).toContain('has no duration and no video track');
    expect(await t.deps.db.media.countDocuments({})).toBe(before);
  });
});
