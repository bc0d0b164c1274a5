import { z } from 'zod';
import { planChunks, type TikTokChunkPlan } from './chunk-plan.js';
import { refusedByClient, TikTokApiError, TikTokInitError } from './errors.js';
import type { TikTokHttp } from './http.js';
import { TIKTOK_RATE_LIMITS } from './rate-limiter.js';

export const PRIVACY_LEVELS = [
  'PUBLIC_TO_EVERYONE',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'SELF_ONLY',
] as const;
export type TikTokPrivacyLevel = (typeof PRIVACY_LEVELS)[number];

/** Caption limits in UTF-16 code units, which is what `String.length` counts (contract 4.2, 4.4). */
export const VIDEO_TITLE_MAX = 2200;
export const PHOTO_TITLE_MAX = 90;
export const PHOTO_DESCRIPTION_MAX = 4000;
export const PHOTO_IMAGES_MAX = 35;

/** A Direct Post video's `post_info` (contract 4.2); `privacyLevel` must be one of creator_info's options. */
export interface TikTokVideoPostInfo {
  privacyLevel: TikTokPrivacyLevel;
  title?: string;
  disableDuet?: boolean;
  disableStitch?: boolean;
  disableComment?: boolean;
  videoCoverTimestampMs?: number;
  /** Paid partnership; sent as false when not given (TikTok's table marks it required). */
  brandContentToggle?: boolean;
  /** Promotes the creator's own business; sent as false when not given. */
  brandOrganicToggle?: boolean;
  isAigc?: boolean;
}

/** Where the video comes from: bytes Postdeck uploads (chunk size 5–64 MiB, default 10 MiB) or a URL TikTok pulls. */
export type TikTokVideoSource =
  { source: 'FILE_UPLOAD'; videoSize: number; chunkSize?: number } | { source: 'PULL_FROM_URL'; videoUrl: string };

/** A video init's answer. FILE_UPLOAD also gets the opaque `uploadUrl` (valid 1 h) and the plan it declared. */
export interface TikTokVideoInit {
  publishId: string;
  uploadUrl?: string;
  plan?: TikTokChunkPlan;
}

/** A Direct Post photo's `post_info` (contract 4.4). Photos have no duet or stitch. */
export interface TikTokPhotoDirectInfo {
  privacyLevel: TikTokPrivacyLevel;
  title?: string;
  description?: string;
  disableComment?: boolean;
  autoAddMusic?: boolean;
  brandContentToggle?: boolean;
  brandOrganicToggle?: boolean;
}

/** A photo post: direct, or a draft (MEDIA_UPLOAD) whose title and description go into the user's editor. */
export type TikTokPhotoPost = (
  | { postMode: 'DIRECT_POST'; postInfo: TikTokPhotoDirectInfo }
  | { postMode: 'MEDIA_UPLOAD'; postInfo: { title?: string; description?: string } }
) & {
  /** 1 to 35 public URLs on the app's verified domains, JPEG or WebP. */
  photoImages: string[];
  /** 0-based index of the cover in photoImages. */
  photoCoverIndex: number;
  isAigc?: boolean;
};

const VideoInitSchema = z.object({ publish_id: z.string().min(1), upload_url: z.string().min(1).optional() });
const PhotoInitSchema = z.object({ publish_id: z.string().min(1) });

/**
 * Direct Post of a video: `POST /v2/post/publish/video/init/` (scope video.publish, 6/min per token).
 * Never retried by the transport, since a repeat could post twice; every failure is a TikTokInitError
 * whose `createdNothing` says whether TikTok certainly created nothing. FILE_UPLOAD: send the bytes
 * next with uploadVideo(uploadUrl, { plan, ... }).
 */
export async function initVideoPost(
  http: TikTokHttp,
  accessToken: string,
  input: { postInfo: TikTokVideoPostInfo; source: TikTokVideoSource },
): Promise<TikTokVideoInit> {
  return classified(async () => {
    const { sourceInfo, plan } = videoSourceInfo(input.source);
    const body = { post_info: videoPostInfo(input.postInfo), source_info: sourceInfo };
    return initVideo(http, accessToken, '/v2/post/publish/video/init/', body, input.source, plan);
  });
}

/**
 * A video draft sent to the user's TikTok inbox: `POST /v2/post/publish/inbox/video/init/` (scope
 * video.upload, 6/min per token). Only `source_info`: the user adds caption and privacy in the app.
 * Failures as initVideoPost.
 */
export async function initInboxVideo(
  http: TikTokHttp,
  accessToken: string,
  input: { source: TikTokVideoSource },
): Promise<TikTokVideoInit> {
  return classified(async () => {
    const { sourceInfo, plan } = videoSourceInfo(input.source);
    return initVideo(
      http,
      accessToken,
      '/v2/post/publish/inbox/video/init/',
      { source_info: sourceInfo },
      input.source,
      plan,
    );
  });
}

/**
 * A photo post, direct or draft: `POST /v2/post/publish/content/init/` (video.publish for DIRECT_POST,
 * video.upload for MEDIA_UPLOAD; 6/min per token). TikTok always pulls photos from their URLs.
 * Failures as initVideoPost.
 */
export async function initPhotoPost(
  http: TikTokHttp,
  accessToken: string,
  input: TikTokPhotoPost,
): Promise<{ publishId: string }> {
  return classified(async () => {
    const body = {
      media_type: 'PHOTO',
      post_mode: input.postMode,
      post_info: input.postMode === 'DIRECT_POST' ? photoDirectInfo(input.postInfo) : photoDraftInfo(input.postInfo),
      source_info: photoSourceInfo(input.photoImages, input.photoCoverIndex),
      // The 2026-09 photo doc lists is_aigc at the top level of the body, not in post_info (contract 4.4).
      is_aigc: input.isAigc,
    };
    const { data } = await http.api({
      method: 'POST',
      path: '/v2/post/publish/content/init/',
      accessToken,
      body,
      schema: PhotoInitSchema,
      safe: false,
      limit: TIKTOK_RATE_LIMITS.publishInit,
    });
    return { publishId: data.publish_id };
  });
}

async function initVideo(
  http: TikTokHttp,
  accessToken: string,
  path: string,
  body: object,
  source: TikTokVideoSource,
  plan: TikTokChunkPlan | undefined,
): Promise<TikTokVideoInit> {
  const { data } = await http.api({
    method: 'POST',
    path,
    accessToken,
    body,
    schema: VideoInitSchema,
    safe: false,
    limit: TIKTOK_RATE_LIMITS.publishInit,
  });
  if (source.source === 'PULL_FROM_URL') return { publishId: data.publish_id };
  if (!data.upload_url) {
    // The publish exists (TikTok said ok) but cannot receive bytes: not something to send again blindly.
    throw new TikTokApiError('unexpected_response', `${path} answered no upload_url for FILE_UPLOAD`, 200, 'api');
  }
  return { publishId: data.publish_id, uploadUrl: data.upload_url, plan };
}

/** Runs an init and turns every failure into a TikTokInitError that says whether anything was created. */
async function classified<T>(init: () => Promise<T>): Promise<T> {
  try {
    return await init();
  } catch (error) {
    if (error instanceof TikTokInitError) throw error;
    if (error instanceof TikTokApiError) throw new TikTokInitError(error);
    // Not an answer from TikTok (the runtime failing mid-call): whether the request left is unknown.
    const message = error instanceof Error ? error.message : String(error);
    throw new TikTokInitError(new TikTokApiError('unexpected_error', message, 0, 'api'));
  }
}

function videoSourceInfo(source: TikTokVideoSource): { sourceInfo: object; plan?: TikTokChunkPlan } {
  if (source.source === 'PULL_FROM_URL') {
    return { sourceInfo: { source: 'PULL_FROM_URL', video_url: checkedUrl(source.videoUrl, 'videoUrl') } };
  }
  const plan = planChunks(source.videoSize, source.chunkSize);
  return {
    sourceInfo: {
      source: 'FILE_UPLOAD',
      video_size: plan.videoSize,
      chunk_size: plan.chunkSize,
      total_chunk_count: plan.totalChunkCount,
    },
    plan,
  };
}

function videoPostInfo(info: TikTokVideoPostInfo): object {
  checkedLength(info.title, VIDEO_TITLE_MAX, 'title');
  const cover = info.videoCoverTimestampMs;
  if (cover !== undefined && !(Number.isInteger(cover) && cover >= 0 && cover <= 2 ** 31 - 1)) {
    throw refusedByClient(`videoCoverTimestampMs must be a whole number of milliseconds (int32), got ${cover}`);
  }
  return {
    privacy_level: checkedPrivacy(info.privacyLevel),
    title: info.title,
    disable_duet: info.disableDuet,
    disable_stitch: info.disableStitch,
    disable_comment: info.disableComment,
    video_cover_timestamp_ms: cover,
    brand_content_toggle: info.brandContentToggle ?? false,
    brand_organic_toggle: info.brandOrganicToggle ?? false,
    is_aigc: info.isAigc,
  };
}

function photoDirectInfo(info: TikTokPhotoDirectInfo): object {
  return {
    ...photoDraftInfo(info),
    privacy_level: checkedPrivacy(info.privacyLevel),
    disable_comment: info.disableComment,
    auto_add_music: info.autoAddMusic,
    brand_content_toggle: info.brandContentToggle ?? false,
    brand_organic_toggle: info.brandOrganicToggle ?? false,
  };
}

function photoDraftInfo(info: { title?: string; description?: string }): { title?: string; description?: string } {
  checkedLength(info.title, PHOTO_TITLE_MAX, 'title');
  checkedLength(info.description, PHOTO_DESCRIPTION_MAX, 'description');
  return { title: info.title, description: info.description };
}

function photoSourceInfo(images: readonly string[], coverIndex: number): object {
  if (images.length < 1 || images.length > PHOTO_IMAGES_MAX) {
    throw refusedByClient(`photoImages must hold 1 to ${PHOTO_IMAGES_MAX} URLs, got ${images.length}`);
  }
  if (!Number.isInteger(coverIndex) || coverIndex < 0 || coverIndex >= images.length) {
    throw refusedByClient(`photoCoverIndex must be 0 to ${images.length - 1}, got ${coverIndex}`);
  }
  return {
    source: 'PULL_FROM_URL',
    photo_images: images.map((url, i) => checkedUrl(url, `photoImages[${i}]`)),
    photo_cover_index: coverIndex,
  };
}

function checkedPrivacy(level: string): TikTokPrivacyLevel {
  const known = PRIVACY_LEVELS.find((l) => l === level);
  if (!known) throw refusedByClient(`privacyLevel must be one of ${PRIVACY_LEVELS.join(', ')}, got ${level}`);
  return known;
}

function checkedLength(text: string | undefined, max: number, what: string): void {
  if (text !== undefined && text.length > max) {
    throw refusedByClient(`${what} is ${text.length} UTF-16 code units, over TikTok's ${max}`);
  }
}

// TikTok checks https and the verified prefixes itself (403 url_ownership_unverified); this only stops
// what could never be a URL.
function checkedUrl(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refusedByClient(`${what} is not an absolute URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw refusedByClient(`${what} must be an http(s) URL`);
  }
  return url;
}
