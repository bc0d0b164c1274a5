/** What the emulator checks of a video, read from its MP4/MOV header. */
export interface VideoHeader {
  width: number;
  height: number;
  durationSec: number;
}

/** Where the head of an ISO-BMFF file leaves its top-level boxes: the facts, or why it is refused. */
export type HeadReading = { ok: VideoHeader } | { refused: string } | { needMore: true };

interface Box {
  type: string;
  start: number;
  headerSize: number;
  size: number;
}

/** The box at `offset` of `bytes`, or undefined when its header is not all there. */
function boxAt(bytes: Buffer, offset: number, end: number): Box | undefined {
  if (offset + 8 > end) return undefined;
  let size = bytes.readUInt32BE(offset);
  let headerSize = 8;
  if (size === 1) {
    if (offset + 16 > end) return undefined;
    size = Number(bytes.readBigUInt64BE(offset + 8));
    headerSize = 16;
  } else if (size === 0) {
    size = Number.MAX_SAFE_INTEGER;
  }
  return { type: bytes.toString('latin1', offset + 4, offset + 8), start: offset, headerSize, size };
}

/**
 * Reads the head of a video file as it arrives (contract 2.4: MOV/MP4 with the `moov` atom at the front):
 * the first box must be `ftyp`, and `moov` must come before `mdat`. Answers `needMore` until `moov` is whole.
 */
export function readVideoHead(head: Buffer, complete: boolean): HeadReading {
  let offset = 0;
  let first = true;
  for (;;) {
    const box = boxAt(head, offset, head.length);
    if (!box) return complete ? { refused: 'the file has no moov box' } : { needMore: true };
    if (first && box.type !== 'ftyp') return { refused: 'the file is not an MP4 or MOV (no ftyp box first)' };
    first = false;
    if (box.type === 'mdat') return { refused: 'the moov box comes after the media data (not at the front)' };
    if (box.type === 'moov') {
      if (box.start + box.size > head.length) return complete ? { refused: 'the moov box is cut' } : { needMore: true };
      const facts = parseMoov(head.subarray(box.start + box.headerSize, box.start + box.size));
      return facts ? { ok: facts } : { refused: 'the moov box has no readable video track' };
    }
    if (box.size < box.headerSize) return { refused: 'a box has a broken size' };
    offset = box.start + box.size;
  }
}

function children(body: Buffer): [string, Buffer][] {
  const boxes: [string, Buffer][] = [];
  let offset = 0;
  while (offset + 8 <= body.length) {
    const box = boxAt(body, offset, body.length);
    if (!box) break;
    const size = box.size === Number.MAX_SAFE_INTEGER ? body.length - offset : box.size;
    if (size < box.headerSize || offset + size > body.length) break;
    boxes.push([box.type, body.subarray(offset + box.headerSize, offset + size)]);
    offset += size;
  }
  return boxes;
}

function child(body: Buffer | undefined, type: string): Buffer | undefined {
  return body && children(body).find(([t]) => t === type)?.[1];
}

/** Seconds of an mvhd or mdhd body (version 0: 32-bit times; version 1: 64-bit). */
function seconds(body: Buffer | undefined): number | null {
  if (!body) return null;
  const v1 = body[0] === 1;
  if (body.length < (v1 ? 32 : 20)) return null;
  const timescale = body.readUInt32BE(v1 ? 20 : 12);
  const duration = v1 ? Number(body.readBigUInt64BE(24)) : body.readUInt32BE(16);
  return timescale > 0 ? duration / timescale : null;
}

function parseMoov(moov: Buffer): VideoHeader | null {
  const movieSec = seconds(child(moov, 'mvhd'));
  for (const [type, trak] of children(moov)) {
    if (type !== 'trak') continue;
    const mdia = child(trak, 'mdia');
    const hdlr = child(mdia, 'hdlr');
    if (!hdlr || hdlr.toString('latin1', 8, 12) !== 'vide') continue;
    const tkhd = child(trak, 'tkhd');
    // tkhd's width and height are 16.16 fixed point after 76 (v0) or 88 (v1) bytes of other fields.
    const at = tkhd?.[0] === 1 ? 88 : 76;
    if (!tkhd || tkhd.length < at + 8) return null;
    const durationSec = movieSec ?? seconds(child(mdia, 'mdhd'));
    if (durationSec === null) return null;
    return { width: tkhd.readUInt32BE(at) / 65536, height: tkhd.readUInt32BE(at + 4) / 65536, durationSec };
  }
  return null;
}
