import type { MediaDoc } from '../../../media/documents.js';
import { toTikTokPostFields } from '../rules/post-fields.js';
import type { TikTokPhotoPost, TikTokPrivacyLevel, TikTokVideoPostInfo } from '../publish.js';
import type { TikTokVideoMimeType } from '../upload.js';
import { PublishRefusal } from '../../../publishing/failure.js';

/** The post's fields as the Direct Post video init takes them (validated settings, mapped by toTikTokPostFields). */
export function videoPostInfoOf(content: string, settings: Record<string, unknown>): TikTokVideoPostInfo {
  const info = toTikTokPostFields('video', content, settings).post_info;
  return {
    // The client checks the value against TikTok's enum before sending.
    privacyLevel: info.privacy_level as TikTokPrivacyLevel,
    ...(info.title !== undefined ? { title: info.title } : {}),
    disableDuet: info.disable_duet,
    disableStitch: info.disable_stitch,
    disableComment: info.disable_comment,
    ...(info.video_cover_timestamp_ms !== undefined ? { videoCoverTimestampMs: info.video_cover_timestamp_ms } : {}),
    brandContentToggle: info.brand_content_toggle,
    brandOrganicToggle: info.brand_organic_toggle,
    isAigc: info.is_aigc,
  };
}

/** A Direct Post photo init: the post's fields plus the URLs TikTok pulls, in the post's media order. */
export function photoPostOf(
  content: string,
  settings: Record<string, unknown>,
  photoImages: string[],
): TikTokPhotoPost {
  const fields = toTikTokPostFields('photo', content, settings);
  const info = fields.post_info;
  return {
    postMode: 'DIRECT_POST',
    postInfo: {
      privacyLevel: info.privacy_level as TikTokPrivacyLevel,
      ...(info.title !== undefined ? { title: info.title } : {}),
      ...(info.description !== undefined ? { description: info.description } : {}),
      disableComment: info.disable_comment,
      autoAddMusic: info.auto_add_music,
      brandContentToggle: info.brand_content_toggle,
      brandOrganicToggle: info.brand_organic_toggle,
    },
    photoImages,
    photoCoverIndex: fields.source_info.photo_cover_index,
    isAigc: fields.is_aigc,
  };
}

const UPLOAD_TYPES: readonly TikTokVideoMimeType[] = ['video/mp4', 'video/quicktime', 'video/webm'];

/** The upload Content-Type of a stored video; media upload only stores these three. */
export function uploadMimeTypeOf(media: Pick<MediaDoc, '_id' | 'mimeType'>): TikTokVideoMimeType {
  const type = UPLOAD_TYPES.find((t) => t === media.mimeType);
  if (!type)
    throw new PublishRefusal(`Media ${media._id} (${media.mimeType}) is not a video TikTok takes. Nothing was posted.`);
  return type;
}
