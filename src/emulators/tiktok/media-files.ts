import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { truncate, unlink } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Thrown when more bytes arrive than a limit allows. */
export class TooLargeError extends Error {}

/**
 * Streams `source` onto the end of the file at `path` (never holding more than one stream chunk in memory),
 * feeding `hash` and `onBytes`, and refusing more than `limit` bytes. On any failure the file is cut back to
 * `sizeBefore`, so a failed transfer leaves nothing behind. Returns the bytes written.
 */
export async function appendStream(
  source: Readable | AsyncIterable<Uint8Array>,
  path: string,
  sizeBefore: number,
  hash: Hash,
  limit: number,
  onBytes: (count: number) => void = () => undefined,
): Promise<number> {
  let written = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      written += chunk.length;
      if (written > limit) return callback(new TooLargeError(`more than ${limit} bytes`));
      hash.update(chunk);
      onBytes(chunk.length);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(source, meter, createWriteStream(path, { flags: 'a' }));
    return written;
  } catch (error) {
    await truncate(path, sizeBefore).catch(() => undefined);
    throw error;
  }
}

/** A fresh SHA-256. */
export function sha256(): Hash {
  return createHash('sha256');
}

/** Deletes a media file once checked (sizes and hashes are kept, the bytes need not be). */
export async function discard(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}
