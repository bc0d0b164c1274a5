import { DEFAULT_UPLOAD_CHUNK_BYTES } from '../../publishing/settings.js';
import { refusedByClient } from './errors.js';

/** TikTok's "MB" read as MiB: its doc's "4 MB" example is 4,194,304 bytes (contract 4.3). */
export const MIB = 1024 * 1024;
/** Files under this go up whole, as one chunk with chunk_size = video_size. */
export const MIN_CHUNK_BYTES = 5 * MIB;
export const MAX_CHUNK_BYTES = 64 * MIB;
/** The last chunk takes the remainder, so it may be larger than chunk_size, up to this. */
export const MAX_LAST_CHUNK_BYTES = 128 * MIB;
export const MAX_CHUNKS = 1000;
/** Small enough to retry cheaply, large enough that a 4 GB video stays far under 1000 chunks. */
export const DEFAULT_CHUNK_BYTES = DEFAULT_UPLOAD_CHUNK_BYTES;

/** One chunk: bytes `start` to `end` inclusive (as in `Content-Range` and fs.createReadStream). */
export interface TikTokChunk {
  index: number;
  start: number;
  end: number;
  size: number;
}

/** How a FILE_UPLOAD is split: the three numbers the init declares, and the chunks the PUTs send. */
export interface TikTokChunkPlan {
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
  chunks: TikTokChunk[];
}

/**
 * Splits a video of `videoSize` bytes per contract 4.3: under 5 MiB one chunk with chunk_size =
 * video_size; otherwise total_chunk_count = floor(size / chunk_size), every chunk chunk_size bytes
 * but the last, which takes the remainder. `preferredChunkSize` (5–64 MiB) is grown when the file
 * would need more than 1000 chunks, and shrunk to the file when the file is smaller than it; a file
 * over 64 MiB always gets at least two chunks ("must be split"). Deterministic: the same input gives
 * the same plan, so a plan can be recomputed from the size and chunk size the init declared.
 */
export function planChunks(videoSize: number, preferredChunkSize: number = DEFAULT_CHUNK_BYTES): TikTokChunkPlan {
  if (!Number.isSafeInteger(videoSize) || videoSize < 1) {
    throw refusedByClient(`video size must be a positive whole number of bytes, got ${videoSize}`);
  }
  if (
    !Number.isSafeInteger(preferredChunkSize) ||
    preferredChunkSize < MIN_CHUNK_BYTES ||
    preferredChunkSize > MAX_CHUNK_BYTES
  ) {
    throw refusedByClient(
      `chunk size must be between ${MIN_CHUNK_BYTES} and ${MAX_CHUNK_BYTES} bytes (5 to 64 MiB), got ${preferredChunkSize}`,
    );
  }
  if (videoSize < MIN_CHUNK_BYTES) return fromChunkSize(videoSize, videoSize);

  let chunkSize = Math.min(preferredChunkSize, videoSize);
  // floor(size / c) <= 1000 holds exactly when c > size / 1001.
  if (Math.floor(videoSize / chunkSize) > MAX_CHUNKS) chunkSize = Math.floor(videoSize / (MAX_CHUNKS + 1)) + 1;
  if (videoSize > MAX_CHUNK_BYTES && Math.floor(videoSize / chunkSize) < 2) chunkSize = Math.floor(videoSize / 2);
  if (chunkSize > MAX_CHUNK_BYTES) {
    throw refusedByClient(
      `a ${videoSize}-byte video cannot be split into at most ${MAX_CHUNKS} chunks of at most ${MAX_CHUNK_BYTES} bytes`,
    );
  }
  return fromChunkSize(videoSize, chunkSize);
}

function fromChunkSize(videoSize: number, chunkSize: number): TikTokChunkPlan {
  const totalChunkCount = Math.floor(videoSize / chunkSize);
  const chunks: TikTokChunk[] = [];
  for (let index = 0; index < totalChunkCount; index += 1) {
    const start = index * chunkSize;
    const end = index === totalChunkCount - 1 ? videoSize - 1 : start + chunkSize - 1;
    chunks.push({ index, start, end, size: end - start + 1 });
  }
  const last = chunks[chunks.length - 1]?.size ?? 0;
  // Unreachable with chunks of at most 64 MiB (the remainder is under one chunk); kept as the rule's guard.
  if (last > MAX_LAST_CHUNK_BYTES) {
    throw refusedByClient(`the last chunk would be ${last} bytes, over ${MAX_LAST_CHUNK_BYTES}`);
  }
  return { videoSize, chunkSize, totalChunkCount, chunks };
}
