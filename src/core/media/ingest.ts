import { Transform, type TransformCallback, type Readable } from 'node:stream';
import { AppError } from '../errors.js';
import type { MediaDeps, MediaLimits } from './deps.js';
import { newStorageKey } from './store.js';
import { ACCEPTED_TYPES_TEXT, mediaTypeOf, sniffMimeType, SNIFF_BYTES, type MediaMimeType } from './sniff.js';

/** An uploaded file that is in the store but not yet a media object (a PNG not yet converted). */
export interface IngestedFile {
  storageKey: string;
  mimeType: MediaMimeType;
  size: number;
  sha256: string;
}

/**
 * Streams an upload into the store while checking it: the type is sniffed from the first bytes
 * and the size limit of that type enforced as bytes arrive, so a bad or oversized file is cut
 * off early and nothing of it stays in the store.
 */
export async function ingestUpload(media: MediaDeps, source: Readable): Promise<IngestedFile> {
  const guard = new UploadGuard(media.limits);
  const storageKey = newStorageKey();
  source.once('error', (error) => guard.destroy(error));
  const stored = await media.store.put(storageKey, source.pipe(guard));
  if (!guard.mimeType) throw new Error('upload guard finished without a type');
  return { storageKey, mimeType: guard.mimeType, size: stored.size, sha256: stored.sha256 };
}

/** The message of a size-limit error, naming the limit and the setting that raises it. */
export function tooLargeError(mediaType: 'image' | 'video', limits: MediaLimits): AppError {
  const limit = limits[mediaType];
  const setting = mediaType === 'image' ? 'MEDIA_MAX_IMAGE_BYTES' : 'MEDIA_MAX_VIDEO_BYTES';
  return new AppError(
    'payload_too_large',
    `The ${mediaType} is larger than the limit of ${formatBytes(limit)} (${limit} bytes, ${setting})`,
  );
}

/** Buffers only the sniffing window, then passes chunks through while counting them. */
class UploadGuard extends Transform {
  mimeType: MediaMimeType | undefined;
  private head: Buffer[] = [];
  private headLength = 0;
  private size = 0;
  private limit = Infinity;

  constructor(private readonly limits: MediaLimits) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.mimeType) {
      callback(this.size > this.limit ? tooLargeError(mediaTypeOf(this.mimeType), this.limits) : null, chunk);
      return;
    }
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength < SNIFF_BYTES) return callback();
    this.decide(callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.mimeType) return callback();
    if (this.headLength === 0) return callback(new AppError('invalid_media_file', 'The file is empty'));
    this.decide(callback);
  }

  private decide(callback: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    const mimeType = sniffMimeType(head);
    if (!mimeType) {
      return callback(
        new AppError(
          'invalid_media_file',
          `The file is not a supported type: send ${ACCEPTED_TYPES_TEXT} (judged by its content)`,
        ),
      );
    }
    this.mimeType = mimeType;
    this.limit = this.limits[mediaTypeOf(mimeType)];
    callback(this.size > this.limit ? tooLargeError(mediaTypeOf(mimeType), this.limits) : null, head);
  }
}

function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value} ${units[unit]}`;
}
