import { z } from 'zod';
import { validateResponse, type TikTokHttp } from './http.js';
import { TIKTOK_RATE_LIMITS } from './rate-limiter.js';

/** The documented statuses of a publish (contract 4.6); PUBLISH_COMPLETE and FAILED are final. */
export const PUBLISH_STATUSES = [
  'PROCESSING_UPLOAD',
  'PROCESSING_DOWNLOAD',
  'SEND_TO_USER_INBOX',
  'PUBLISH_COMPLETE',
  'FAILED',
] as const;
export type TikTokPublishStatus = (typeof PUBLISH_STATUSES)[number];

/** Whether a status is final. An undocumented status is not: the caller keeps polling. */
export function isFinalPublishStatus(status: string): boolean {
  return status === 'PUBLISH_COMPLETE' || status === 'FAILED';
}

/** A publish as status/fetch reports it; post ids are exact decimal strings (they exceed 2^53). */
export interface TikTokPublishState {
  /** One of PUBLISH_STATUSES, or a status TikTok added since (kept, not refused). */
  status: TikTokPublishStatus | (string & {});
  /** Set on FAILED (`file_format_check_failed`, `publish_cancelled`, ...); null when TikTok sent none. */
  failReason: string | null;
  /** Filled only once the post is public and moderated; a draft may yield several; often [] at first. */
  postIds: string[];
  uploadedBytes: number | null;
  downloadedBytes: number | null;
}

// The body parser quotes integers over 15 digits, so a 19-digit id arrives as a string; shorter ones
// stay numbers and are exact (below 2^53), so both forms become the same decimal string.
const PostIdSchema = z.union([
  z.string().regex(/^\d+$/),
  z
    .number()
    .refine((n) => Number.isSafeInteger(n) && n >= 0, 'post id must be a whole number')
    .transform(String),
]);
const ByteCountSchema = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);

const STATUS_PATH = '/v2/post/publish/status/fetch/';

const StatusSchema = z.object({
  status: z.string().min(1),
  fail_reason: z.string().nullish(),
  // Sic: TikTok's field name is misspelled (contract 4.6).
  publicaly_available_post_id: z.array(PostIdSchema).nullish(),
  uploaded_bytes: ByteCountSchema.nullish(),
  downloaded_bytes: ByteCountSchema.nullish(),
});

/**
 * Reads `POST /v2/post/publish/status/fetch/` (video.upload or video.publish, 30/min per token; the
 * client-side limiter waits rather than spend a certain 429). A read, so retried on 429, 5xx and
 * network errors. `access_token_invalid` is thrown as is, for the caller to refresh and call again.
 */
export async function fetchPublishStatus(
  http: TikTokHttp,
  accessToken: string,
  publishId: string,
): Promise<TikTokPublishState> {
  const { data } = await http.api({
    method: 'POST',
    path: STATUS_PATH,
    accessToken,
    body: { publish_id: publishId },
    schema: z.unknown(),
    safe: true,
    limit: TIKTOK_RATE_LIMITS.publishStatus,
  });
  return readPublishState(data);
}

/** Reads status/fetch's `data` (already parsed with long integers kept as strings) into a TikTokPublishState. */
export function readPublishState(data: unknown): TikTokPublishState {
  const d = validateResponse(StatusSchema, data, STATUS_PATH);
  return {
    status: d.status,
    failReason: d.fail_reason || null,
    postIds: d.publicaly_available_post_id ?? [],
    uploadedBytes: d.uploaded_bytes ?? null,
    downloadedBytes: d.downloaded_bytes ?? null,
  };
}

/**
 * Cancels an ongoing PULL_FROM_URL download: `POST /v2/post/publish/cancel/`, best effort (contract
 * 4.7); the publish then ends FAILED with `publish_cancelled`. Retried like a read: a repeat after a
 * lost success answers 400 `publish_not_cancellable`, which the caller resolves by fetching the status.
 */
export async function cancelPublish(http: TikTokHttp, accessToken: string, publishId: string): Promise<void> {
  await http.api({
    method: 'POST',
    path: '/v2/post/publish/cancel/',
    accessToken,
    body: { publish_id: publishId },
    schema: z.unknown(),
    safe: true,
    limit: TIKTOK_RATE_LIMITS.publishCancel,
  });
}
