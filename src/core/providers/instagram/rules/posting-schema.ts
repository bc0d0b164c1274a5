import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import { withInstagramToken } from '../connect/token-access.js';
import { GraphError, GraphTransportError } from '../graph-errors.js';
import { instagramHttpOf } from '../http-of.js';
import { INSTAGRAM_LIMITS as L } from './limits.js';
import type { InstagramPostingSchemaBody } from './posting-schema-body.js';
import { INSTAGRAM_SETTINGS_JSON_SCHEMA } from './settings-schema.js';

interface PublishingLimit {
  data?: { quota_usage?: number; config?: { quota_total?: number; quota_duration?: number } }[];
}

/** The live posting schema of an Instagram account (`GET /platforms/{id}/schema`), with its quota read now. */
export async function instagramPostingSchema(
  deps: CoreDeps,
  platform: PlatformDoc,
): Promise<InstagramPostingSchemaBody> {
  const checkedAt = deps.now();
  return {
    platformId: platform._id,
    provider: 'instagram',
    checkedAt: checkedAt.toISOString(),
    account: {
      displayName: platform.displayName,
      displayHandle: platform.displayHandle,
      accountType: typeof platform.metadata.accountType === 'string' ? platform.metadata.accountType : null,
    },
    postKinds: [
      { kind: 'image', media: 'exactly 1 image' },
      { kind: 'carousel', media: `${L.carouselMinItems} to ${L.carouselMaxItems} images and videos, mixed freely` },
      { kind: 'reel', media: 'exactly 1 video' },
    ],
    quota: await readQuota(deps, platform),
    content: {
      unit: 'characters (Unicode code points: an emoji counts 1)',
      maxLength: L.captionMaxChars,
      maxHashtags: L.maxHashtags,
      maxMentions: L.maxMentions,
    },
    media: {
      image: {
        mimeTypes: [...L.imageMimeTypes],
        renderedAsJpeg: ['image/png', 'image/webp'],
        maxBytes: L.imageMaxBytes,
        minWidthPx: L.imageMinWidth,
        maxWidthPx: L.imageMaxWidth,
        minAspectRatio: L.minAspect,
        maxAspectRatio: L.maxAspect,
      },
      video: {
        mimeTypes: [...L.videoMimeTypes],
        maxBytes: L.videoMaxBytes,
        minDurationSec: L.videoMinSec,
        maxDurationSec: L.videoMaxSec,
        maxWidthPx: L.videoMaxWidth,
      },
      carousel: { minCount: L.carouselMinItems, maxCount: L.carouselMaxItems },
    },
    settings: { ...INSTAGRAM_SETTINGS_JSON_SCHEMA },
    rules: RULES,
    threadReplies: {
      supported: false,
      reason: 'Instagram has no replies or threads for posts; send each post on its own.',
      maxReplies: 0,
      mediaPerReply: 'none',
    },
  };
}

const RULES = [
  'mediaIds: 1 image (an image post), 2 to 10 images and videos (a carousel), or 1 video (a Reel); only READY media.',
  'Images: Instagram takes JPEGs under 8 MiB, 320 to 1440 px wide, aspect ratio from 4:5 (0.8) to 1.91:1. Postdeck renders a PNG or WebP image as a JPEG (at most 1440 px wide) for the post; the original stays in the library.',
  'A 9:16 image (or any outside 4:5 to 1.91:1) is refused unless settings.fit asks Postdeck to render it: {"mode":"pad","background":"blur"}, {"mode":"pad","background":"#RRGGBB"} or {"mode":"crop"}.',
  'Videos: MP4 or QuickTime, at most 300 MiB, 3 s to 15 min, at most 1920 px wide.',
  `content is the caption: at most ${L.captionMaxChars} characters, ${L.maxHashtags} hashtags and ${L.maxMentions} @ mentions.`,
  'settings.alt_text: alt text per item in mediaIds order, for images only.',
  `settings.collaborators: at most ${L.maxCollaborators} usernames, without @.`,
  'settings.share_to_feed and settings.thumb_offset (ms, below the video length): Reels only. settings.fit: images only (above). Any other key is refused.',
  'One post to several networks: each network takes the settings keys it declares and ignores those another network of the same request declares.',
  'Instagram allows a limited number of API publishes per rolling 24 hours (quota); a post over it waits until the quota frees.',
  'Thread replies are not supported.',
];

/** The rolling 24-hour publishing quota now, or null when Instagram does not answer (the schema is still useful). */
async function readQuota(deps: CoreDeps, platform: PlatformDoc): Promise<InstagramPostingSchemaBody['quota']> {
  try {
    const answer = await withInstagramToken(deps, platform, (token) =>
      instagramHttpOf(deps).get<PublishingLimit>(
        `/${platform.providerAccountId}/content_publishing_limit`,
        { fields: 'quota_usage,config' },
        token,
      ),
    );
    const row = answer.data?.[0];
    const total = row?.config?.quota_total;
    if (typeof total !== 'number') return null;
    const used = row?.quota_usage ?? 0;
    const windowHours = Math.round((row?.config?.quota_duration ?? 86_400) / 3600);
    return { used, total, left: Math.max(0, total - used), windowHours };
  } catch (error) {
    if (!(error instanceof GraphError || error instanceof GraphTransportError)) throw error;
    deps.logger.warn({ platformId: platform._id, why: error.message }, 'instagram quota read failed');
    return null;
  }
}
