import type { DecodeGate } from './decode-gate.js';
import type { MediaStore } from './store.js';

/** Size limits per media type, in bytes (MEDIA_MAX_IMAGE_BYTES, MEDIA_MAX_VIDEO_BYTES). */
export interface MediaLimits {
  readonly image: number;
  readonly video: number;
}

/** What the media use cases need beyond CoreDeps: the byte store, limits and the public base URL. */
export interface MediaDeps {
  readonly store: MediaStore;
  readonly limits: MediaLimits;
  /** Where `/m/...` is reachable from outside (PUBLIC_BASE_URL), without a trailing slash. */
  readonly publicBaseUrl: string;
  /** Where Postdeck's own API is reachable from outside (PUBLIC_URL): upload links point here. */
  readonly uploadBaseUrl: string;
  /** Whether a scheduled or queued post still uses the media (deletion is refused then). */
  readonly isInUse: (workspaceId: string, mediaId: string) => Promise<boolean>;
  /** This process's limit on image decodes at once (DECODE_CONCURRENCY, DECODE_QUEUE). */
  readonly decodes: DecodeGate;
}
