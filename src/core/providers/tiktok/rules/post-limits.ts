import type { TikTokCreatorInfoResult } from '../creator-info.js';

/**
 * TikTok's fixed content and media limits (contract 4.2, 4.4, 4.8). Text lengths are UTF-16 code
 * units, which is what a JavaScript string's `.length` counts (an emoji is usually 2).
 */
export const TIKTOK_LIMITS = Object.freeze({
  videoCaptionMax: 2200,
  photoTitleMax: 90,
  photoDescriptionMax: 4000,
  imageMinCount: 1,
  imageMaxCount: 35,
  imageMimeTypes: ['image/jpeg', 'image/webp'] as readonly string[],
  imageMaxBytes: 20 * 1024 * 1024,
  /** Images larger than this are sent as a JPEG scaled to fit (see decisions, Posting schema). */
  imageMaxShortSide: 1080,
  imageMaxLongSide: 1920,
  videoMimeTypes: ['video/mp4', 'video/webm', 'video/quicktime'] as readonly string[],
  videoMaxBytes: 4 * 1024 * 1024 * 1024,
  videoMinSide: 360,
  videoMaxSide: 4096,
  videoMinFps: 23,
  videoMaxFps: 60,
  /** TikTok's own ceiling; a creator's `max_video_post_duration_sec` is usually lower. */
  videoMaxDurationSec: 600,
  /** `video_cover_timestamp_ms` is an int32. */
  int32Max: 2_147_483_647,
});

/** The two kinds of TikTok post: one video, or a photo carousel. */
export type TikTokPostKind = 'video' | 'photo';

export const PRIVACY_SELF_ONLY = 'SELF_ONLY';

/** The creator-dependent part of the rules, from a fresh creator-info answer (contract 4.1). */
export interface TikTokPostingRules {
  /** null when TikTok sent no creator data (only with a "cannot post now" code). */
  creator: { nickname: string; username: string } | null;
  cannotPost: { code: string; reason: string } | null;
  /** Exactly as TikTok returned them; empty when unknown. */
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  /** The creator's cap, never above TikTok's 600 s; null when unknown. */
  maxVideoDurationSec: number | null;
}

const CANNOT_POST_REASONS: Record<string, string> = {
  spam_risk_too_many_posts: 'the account has posted too many times today; try again later',
  spam_risk_user_banned_from_posting: 'TikTok has banned this account from posting for now',
  reached_active_user_cap: "TikTok's daily cap of active users for this app is reached; try again later",
};

/** The rules a creator-info answer implies; the schema body and the validator both start here. */
export function tiktokPostingRules(result: TikTokCreatorInfoResult): TikTokPostingRules {
  const info = result.info;
  const cannotPost = result.cannotPost
    ? {
        code: result.cannotPost.code,
        reason: CANNOT_POST_REASONS[result.cannotPost.code] ?? (result.cannotPost.message || 'TikTok refused posting'),
      }
    : null;
  return {
    creator: info ? { nickname: info.nickname, username: info.username } : null,
    cannotPost,
    privacyLevelOptions: info ? [...info.privacyLevelOptions] : [],
    // Unknown creator settings are treated as disabled: nothing is allowed that might not be.
    commentDisabled: info?.commentDisabled ?? true,
    duetDisabled: info?.duetDisabled ?? true,
    stitchDisabled: info?.stitchDisabled ?? true,
    maxVideoDurationSec: info ? Math.min(info.maxVideoPostDurationSec, TIKTOK_LIMITS.videoMaxDurationSec) : null,
  };
}
