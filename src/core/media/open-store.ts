import { createLocalMediaStore } from './local-store.js';
import { createS3MediaStore } from './s3-store.js';
import type { MediaStore } from './store.js';

/** The media store settings from config: the local directory, or an S3-compatible bucket. */
export type MediaStoreSettings =
  | { kind: 'local'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      prefix: string;
      region: string;
      endpoint: string | undefined;
      forcePathStyle: boolean;
      /** Both set, or both unset to use the SDK's own credential chain (instance roles and so on). */
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
    };

/** Builds the configured store (MEDIA_STORE). */
export function openMediaStore(settings: MediaStoreSettings): MediaStore {
  if (settings.kind === 'local') return createLocalMediaStore(settings.dir);
  const { accessKeyId, secretAccessKey } = settings;
  return createS3MediaStore({
    bucket: settings.bucket,
    prefix: settings.prefix,
    client: {
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    },
  });
}
