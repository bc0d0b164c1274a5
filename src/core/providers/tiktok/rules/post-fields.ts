import type { TikTokPostKind } from './post-limits.js';

/** `post_info` of a Direct Post video init (contract 4.2). */
export interface TikTokVideoPostInfo {
  privacy_level: string;
  title?: string;
  disable_comment: boolean;
  disable_duet: boolean;
  disable_stitch: boolean;
  video_cover_timestamp_ms?: number;
  brand_content_toggle: boolean;
  brand_organic_toggle: boolean;
  is_aigc: boolean;
}

/** `post_info` of a Direct Post photo init (contract 4.4); `is_aigc` is top level for photos. */
export interface TikTokPhotoPostInfo {
  privacy_level: string;
  title?: string;
  description?: string;
  disable_comment: boolean;
  auto_add_music: boolean;
  brand_content_toggle: boolean;
  brand_organic_toggle: boolean;
}

/** The video init body minus `source_info`, which the engine adds with the upload facts. */
export interface TikTokVideoPostFields {
  post_info: TikTokVideoPostInfo;
}

/** The photo init body minus `source_info.photo_images`, which the engine adds as public URLs. */
export interface TikTokPhotoPostFields {
  media_type: 'PHOTO';
  post_mode: 'DIRECT_POST';
  post_info: TikTokPhotoPostInfo;
  is_aigc: boolean;
  source_info: { source: 'PULL_FROM_URL'; photo_cover_index: number };
}

/**
 * Turns settings that passed `validateTikTokPost` into TikTok's fields, so what is sent is exactly
 * what was validated: absent interactions are off (`disable_*` true), absent toggles false, an
 * empty caption is left out. Video: content is the title. Photo: content is the description and
 * `settings.title` the title.
 */
export function toTikTokPostFields(
  kind: 'video',
  content: string,
  settings: Record<string, unknown>,
): TikTokVideoPostFields;
export function toTikTokPostFields(
  kind: 'photo',
  content: string,
  settings: Record<string, unknown>,
): TikTokPhotoPostFields;
export function toTikTokPostFields(
  kind: TikTokPostKind,
  content: string,
  settings: Record<string, unknown>,
): TikTokVideoPostFields | TikTokPhotoPostFields;
export function toTikTokPostFields(
  kind: TikTokPostKind,
  content: string,
  settings: Record<string, unknown>,
): TikTokVideoPostFields | TikTokPhotoPostFields {
  const flag = (key: string, absent: boolean): boolean => (typeof settings[key] === 'boolean' ? settings[key] : absent);
  const common = {
    privacy_level: String(settings.privacy_level),
    disable_comment: flag('disable_comment', true),
  };
  const brand = {
    brand_content_toggle: flag('brand_content_toggle', false),
    brand_organic_toggle: flag('brand_organic_toggle', false),
  };
  if (kind === 'video') {
    const cover = settings.video_cover_timestamp_ms;
    return {
      post_info: {
        ...common,
        ...(content ? { title: content } : {}),
        disable_duet: flag('disable_duet', true),
        disable_stitch: flag('disable_stitch', true),
        ...(typeof cover === 'number' ? { video_cover_timestamp_ms: cover } : {}),
        ...brand,
        is_aigc: flag('is_aigc', false),
      },
    };
  }
  const title = settings.title;
  const cover = settings.photo_cover_index;
  return {
    media_type: 'PHOTO',
    post_mode: 'DIRECT_POST',
    post_info: {
      ...common,
      ...(typeof title === 'string' && title ? { title } : {}),
      ...(content ? { description: content } : {}),
      auto_add_music: flag('auto_add_music', false),
      ...brand,
    },
    is_aigc: flag('is_aigc', false),
    source_info: { source: 'PULL_FROM_URL', photo_cover_index: typeof cover === 'number' ? cover : 0 },
  };
}
