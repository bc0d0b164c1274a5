import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { isStorageKey, type MediaStore } from './store.js';

/** Where the S3-compatible store writes: a bucket (which must exist), an optional key prefix, a client. */
export interface S3StoreSettings {
  bucket: string;
  prefix: string;
  client: S3ClientConfig;
}

/**
 * The media store for deployments with several machines: an S3-compatible bucket (AWS, MinIO,
 * R2...). Uploads stream through multipart uploads of 8 MB parts, at most 4 in flight, so memory
 * stays bounded; a failed or aborted stream aborts the multipart upload, leaving nothing behind.
 */
export function createS3MediaStore(settings: S3StoreSettings): MediaStore {
  const s3 = new S3Client(settings.client);
  const objectKey = (key: string): string => {
    if (!isStorageKey(key)) throw new Error('Invalid storage key');
    return `${settings.prefix}${key}`;
  };
  const Bucket = settings.bucket;

  return {
    async put(key, source) {
      const hash = createHash('sha256');
      let size = 0;
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      });
      // Attached before any await: the source may fail at once (see MediaStore.put).
      const piping = pipeline(source, tap);
      const upload = new Upload({
        client: s3,
        params: { Bucket, Key: objectKey(key), Body: tap },
        partSize: 8 * 1024 * 1024,
        queueSize: 4,
        leavePartsOnError: false,
      });
      await Promise.all([upload.done(), piping]);
      return { size, sha256: hash.digest('hex') };
    },
    async get(key, range) {
      const answer = await s3.send(
        new GetObjectCommand({
          Bucket,
          Key: objectKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      if (!(answer.Body instanceof Readable)) throw new Error('S3 returned no readable body');
      return answer.Body;
    },
    async delete(key) {
      await s3.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
    },
    async exists(key) {
      try {
        await s3.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
        return true;
      } catch (error) {
        if (error instanceof NotFound) return false;
        throw error;
      }
    },
  };
}
