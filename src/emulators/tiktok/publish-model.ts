import { z } from 'zod';

/** The asynchronous `fail_reason` values of contract 4.6. */
export const FAIL_REASONS = [
  'file_format_check_failed',
  'duration_check_failed',
  'frame_rate_check_failed',
  'picture_size_check_failed',
  'internal',
  'video_pull_failed',
  'photo_pull_failed',
  'publish_cancelled',
  'auth_removed',
  'spam_risk_text',
  'spam_risk',
  'spam_risk_too_many_posts',
  'spam_risk_user_banned_from_posting',
] as const;
/** See FAIL_REASONS. */
export type FailReason = (typeof FAIL_REASONS)[number];

/**
 * What the account's next publish does (set with one control call, consumed by the next successful init):
 * end FAILED with `failReason` once its bytes are in; stay PROCESSING_* for `processingPolls` status polls and
 * `processingMs` ms; answer PUBLISH_COMPLETE with `[]` for `moderationPolls` polls before the post id shows;
 * or (`stallPull`) never receive a pulled byte, failing with `*_pull_failed` after the pull timeout.
 */
export const NextPublishSchema = z.object({
  failReason: z.enum(FAIL_REASONS).optional(),
  processingPolls: z.number().int().min(0).optional(),
  processingMs: z.number().int().min(0).optional(),
  moderationPolls: z.number().int().min(0).optional(),
  stallPull: z.boolean().optional(),
});
/** See NextPublishSchema. */
export type NextPublish = z.infer<typeof NextPublishSchema>;

/** The statuses of contract 4.6. */
export type PublishStatus =
  'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'SEND_TO_USER_INBOX' | 'PUBLISH_COMPLETE' | 'FAILED';

/** What the emulator received for one photo or video: sizes and hashes survive, the bytes do not. */
export interface MediaRecord {
  /** The pulled URL; null for FILE_UPLOAD. */
  url: string | null;
  bytes: number;
  /** SHA-256 (hex) of every byte received; null until all arrived. */
  sha256: string | null;
  /** `jpeg`, `webp`, `mp4`, `mov`, `webm`, or null when not recognised (or not yet checked). */
  format: string | null;
  width?: number;
  height?: number;
  durationSec?: number;
  fps?: number;
}

/** The FILE_UPLOAD task behind an upload_url. */
export interface UploadTask {
  uploadId: string;
  uploadToken: string;
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
  expiresAt: number;
  chunksReceived: number;
}

/** One publish_id and everything the emulator knows about it. */
export interface Publish {
  publishId: string;
  openId: string;
  /** The grant whose token created it; revoking that grant fails it with auth_removed while in flight. */
  grantId: string;
  endpoint: 'video_init' | 'inbox_init' | 'content_init';
  kind: 'video' | 'photo';
  /** DIRECT_POST for video/init and photo DIRECT_POST; MEDIA_UPLOAD for the inbox (draft) flows. */
  mode: 'DIRECT_POST' | 'MEDIA_UPLOAD';
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  /** The init body exactly as parsed from the request. */
  request: unknown;
  /** privacy_level as sent; null for inbox video. */
  privacyLevel: string | null;
  /** What TikTok applies: SELF_ONLY for an unaudited app, else privacyLevel. */
  effectivePrivacyLevel: string | null;
  status: PublishStatus;
  failReason: FailReason | null;
  /** Where the publish goes once its hold ends (null while bytes are still arriving or once settled). */
  outcome: { status: 'PUBLISH_COMPLETE' | 'SEND_TO_USER_INBOX' | 'FAILED'; failReason: FailReason | null } | null;
  holdPollsLeft: number;
  holdUntil: number;
  /** Post ids (decimal strings) once moderation passed. */
  postIds: string[];
  /** Ids still withheld by moderation, and how many polls it still takes. */
  idsPending: number;
  moderationPollsLeft: number;
  uploadedBytes: number;
  downloadedBytes: number;
  media: MediaRecord[];
  upload: UploadTask | null;
  directive: NextPublish;
  /** When the init request arrived (epoch ms, taken before its body was read). */
  initReceivedAt: number;
  createdAt: number;
  settledAt: number | null;
}

/** A status still "in flight": bytes arriving or being processed. */
export function isProcessing(p: Publish): boolean {
  return p.status === 'PROCESSING_UPLOAD' || p.status === 'PROCESSING_DOWNLOAD';
}

/** A terminal status (contract 7). */
export function isTerminal(p: Publish): boolean {
  return p.status === 'PUBLISH_COMPLETE' || p.status === 'FAILED';
}
