import type { CoreDeps } from '../../../context.js';
import type { MediaDoc } from '../../../media/documents.js';
import { AppError } from '../../../errors.js';
import { publicUrlOf } from '../../../media/view.js';
import { PublishRefusal } from '../../../publishing/failure.js';

/** A post's item as Instagram fetches it (contract 2.1): its kind and the public URL Instagram reads it from. */
export interface InstagramItem {
  kind: 'image' | 'video';
  url: string;
}

/**
 * The URLs Instagram fetches the media from (`image_url`, `video_url`), in order: each media object's public URL
 * under PUBLIC_BASE_URL (no redirect; ranges served for videos). Instagram takes JPEG images only; the rules
 * refuse any other image before a post is accepted, so one here is refused again without calling Instagram.
 */
export function itemsForInstagram(deps: CoreDeps, media: readonly MediaDoc[]): InstagramItem[] {
  return media.map((doc) => {
    if (doc.status !== 'READY') throw new AppError('invalid_media_file', `Media ${doc._id} is not ready`);
    if (doc.mediaType === 'image' && doc.mimeType !== 'image/jpeg') {
      throw new PublishRefusal(
        `Media ${doc._id} (${doc.mimeType}) is not a JPEG, the only image format Instagram takes. Nothing was posted.`,
      );
    }
    if (doc.mediaType !== 'image' && doc.mediaType !== 'video') {
      throw new PublishRefusal(`Media ${doc._id} is neither an image nor a video. Nothing was posted.`);
    }
    return { kind: doc.mediaType, url: publicUrlOf(doc, deps.media.publicBaseUrl) };
  });
}
