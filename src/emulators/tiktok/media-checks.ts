import { open } from 'node:fs/promises';
import sharp from 'sharp';
import { readVideoFacts } from './iso-bmff.js';
import type { FailReason, MediaRecord } from './publish-model.js';

/** The API's longest video, whatever the creator's own cap (contract 4.8). */
export const MAX_VIDEO_SEC = 600;

/** The container or image format from a file's first bytes, or null. */
export function sniff(head: Buffer): 'jpeg' | 'webp' | 'png' | 'mp4' | 'mov' | 'webm' | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (head.toString('latin1', 1, 4) === 'PNG') return 'png';
  if (head.toString('latin1', 4, 8) === 'ftyp') {
    const brand = head.toString('latin1', 8, 12);
    if (brand === 'qt  ') return 'mov';
    // Image (HEIF/AVIF) and audio-only brands share the box but are not videos.
    return ['heic', 'heix', 'mif1', 'msf1', 'avif', 'M4A '].includes(brand) ? null : 'mp4';
  }
  if (head.readUInt32BE(0) === 0x1a45dfa3) return head.includes('webm', 0, 'latin1') ? 'webm' : null;
  return null;
}

async function readHead(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await file.read(head, 0, 64, 0);
    return head.subarray(0, Math.max(bytesRead, 4));
  } finally {
    await file.close();
  }
}

/**
 * TikTok's photo checks (contract 4.4): JPEG or WebP by the bytes, and at most 1080p, read as fitting 1080×1920 in
 * either orientation (shorter side ≤ 1080, longer side ≤ 1920). Fills the record's format and size.
 */
export async function checkPhoto(path: string, record: MediaRecord): Promise<FailReason | null> {
  const format = sniff(await readHead(path));
  record.format = format;
  if (format !== 'jpeg' && format !== 'webp') return 'file_format_check_failed';
  try {
    const { width, height } = await sharp(path).metadata();
    record.width = width;
    record.height = height;
    return Math.min(width, height) > 1080 || Math.max(width, height) > 1920 ? 'picture_size_check_failed' : null;
  } catch {
    return 'file_format_check_failed';
  }
}

/**
 * TikTok's video checks (contract 4.8): MP4, MOV or WebM by the bytes; for MP4/MOV, each side 360–4096 px,
 * duration at most the creator's cap and 600 s, and 23–60 fps (read from moov; WebM is accepted unmeasured).
 */
export async function checkVideo(
  path: string,
  record: MediaRecord,
  maxDurationSec: number,
): Promise<FailReason | null> {
  const format = sniff(await readHead(path));
  record.format = format;
  if (format !== 'mp4' && format !== 'mov' && format !== 'webm') return 'file_format_check_failed';
  if (format === 'webm') return null;
  const facts = await readVideoFacts(path);
  if (!facts) return 'file_format_check_failed';
  Object.assign(record, facts);
  const sides = [facts.width, facts.height];
  if (sides.some((side) => side < 360 || side > 4096)) return 'picture_size_check_failed';
  if (facts.durationSec > Math.min(maxDurationSec, MAX_VIDEO_SEC)) return 'duration_check_failed';
  // 0.05 fps of slack for rounding in the sample tables.
  if (facts.fps < 23 - 0.05 || facts.fps > 60 + 0.05) return 'frame_rate_check_failed';
  return null;
}
