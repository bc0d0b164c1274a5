import { z } from 'zod';
import type { TikTokCreatorInfoResult } from '../creator-info.js';
import { PRIVACY_SELF_ONLY, TIKTOK_LIMITS as L, tiktokPostingRules } from './post-limits.js';
import { tiktokSettingsJsonSchema } from './settings-schema.js';

const JsonSchemaObject = z.record(z.string(), z.unknown()).describe('a JSON Schema (draft 2020-12) document');

/** The posting schema of a platform: everything needed to build a valid post, and nothing else. */
export const PostingSchemaBodySchema = z
  .object({
    platformId: z.uuid(),
    provider: z.literal('tiktok'),
    checkedAt: z.iso.datetime().describe('when TikTok was asked; read the schema again right before posting'),
    account: z
      .object({
        displayName: z.string().nullable(),
        displayHandle: z.string().nullable(),
        creatorNickname: z.string().nullable().describe('show this so the user sees which account posts'),
        creatorUsername: z.string().nullable().describe('the @handle, without the @'),
      })
      .describe('creator fields are null when TikTok sent no creator data'),
    canPost: z.boolean().describe('false: TikTok refuses posts from this account now; see cannotPost'),
    cannotPost: z
      .object({ code: z.string().describe("TikTok's code"), reason: z.string() })
      .nullable()
      .describe('why the account cannot post now, or null'),
    privacyLevelOptions: z.array(z.string()).describe('exactly as TikTok returned them; no default, ask the user'),
    disabledByCreator: z
      .object({ comment: z.boolean(), duet: z.boolean(), stitch: z.boolean() })
      .describe('interactions the creator turned off on TikTok; they stay off'),
    content: z
      .object({
        unit: z.string(),
        video: z.object({ maxLength: z.int(), sentAs: z.string() }),
        photo: z.object({ maxLength: z.int(), sentAs: z.string(), titleMaxLength: z.int() }),
      })
      .describe('limits of the request field content'),
    media: z
      .object({
        rule: z.string(),
        video: z.object({
          count: z.int(),
          mimeTypes: z.array(z.string()),
          maxBytes: z.int(),
          minSidePx: z.int(),
          maxSidePx: z.int(),
          minFps: z.int(),
          maxFps: z.int(),
          maxDurationSec: z.int().nullable().describe("this creator's limit; null when unknown"),
        }),
        image: z.object({
          minCount: z.int(),
          maxCount: z.int(),
          mimeTypes: z.array(z.string()),
          maxBytes: z.int(),
          oversize: z.string(),
        }),
      })
      .describe('rules of the request field mediaIds'),
    settings: z
      .object({ video: JsonSchemaObject, photo: JsonSchemaObject })
      .describe('the request field settings, for a video post and for a photo post'),
    rules: z.array(z.string()).describe('every rule in words, including those JSON Schema cannot express'),
    threadReplies: z.object({
      supported: z.literal(false),
      reason: z.string(),
      maxReplies: z.literal(0),
      mediaPerReply: z.literal('none'),
    }),
    consent: z
      .object({ text: z.string(), brandedContentText: z.string(), when: z.string() })
      .describe('the consent line TikTok requires before posting'),
  })
  .meta({ id: 'PostingSchema' });

/** The posting-schema body. */
export type PostingSchemaBody = z.infer<typeof PostingSchemaBodySchema>;

/** What the builder needs: the account, a fresh creator-info answer and when it was fetched. */
export interface PostingSchemaInput {
  platform: { id: string; displayName: string | null; displayHandle: string | null };
  creator: TikTokCreatorInfoResult;
  checkedAt: Date;
}

const CONSENT = "By posting, you agree to TikTok's Music Usage Confirmation.";
const BRANDED_CONSENT = "By posting, you agree to TikTok's Branded Content Policy and Music Usage Confirmation.";

/** Renders the posting rules for one TikTok account from its creator info (spec 4, Platforms). */
export function buildTikTokPostingSchema(input: PostingSchemaInput): PostingSchemaBody {
  const rules = tiktokPostingRules(input.creator);
  const maxDuration = rules.maxVideoDurationSec;
  return {
    platformId: input.platform.id,
    provider: 'tiktok',
    checkedAt: input.checkedAt.toISOString(),
    account: {
      displayName: input.platform.displayName,
      displayHandle: input.platform.displayHandle,
      creatorNickname: rules.creator?.nickname ?? null,
      creatorUsername: rules.creator?.username ?? null,
    },
    canPost: rules.cannotPost === null,
    cannotPost: rules.cannotPost,
    privacyLevelOptions: rules.privacyLevelOptions,
    disabledByCreator: { comment: rules.commentDisabled, duet: rules.duetDisabled, stitch: rules.stitchDisabled },
    content: {
      unit: 'UTF-16 code units (a JavaScript string length; an emoji usually counts 2)',
      video: { maxLength: L.videoCaptionMax, sentAs: 'the video caption (title)' },
      photo: { maxLength: L.photoDescriptionMax, sentAs: 'the photo description', titleMaxLength: L.photoTitleMax },
    },
    media: {
      rule: `mediaIds: exactly 1 video, or ${L.imageMinCount} to ${L.imageMaxCount} images, never mixed; READY media only, in posting order`,
      video: {
        count: 1,
        mimeTypes: [...L.videoMimeTypes],
        maxBytes: L.videoMaxBytes,
        minSidePx: L.videoMinSide,
        maxSidePx: L.videoMaxSide,
        minFps: L.videoMinFps,
        maxFps: L.videoMaxFps,
        maxDurationSec: maxDuration,
      },
      image: {
        minCount: L.imageMinCount,
        maxCount: L.imageMaxCount,
        mimeTypes: [...L.imageMimeTypes],
        maxBytes: L.imageMaxBytes,
        oversize: `Images over 1080p (short side over ${L.imageMaxShortSide} px or long side over ${L.imageMaxLongSide} px) are accepted; Postdeck sends TikTok a JPEG scaled to fit at publish.`,
      },
    },
    settings: { video: tiktokSettingsJsonSchema(rules, 'video'), photo: tiktokSettingsJsonSchema(rules, 'photo') },
    rules: ruleList(rules.cannotPost, maxDuration),
    threadReplies: {
      supported: false,
      reason: 'TikTok has no replies or threads for posts; send each post on its own.',
      maxReplies: 0,
      mediaPerReply: 'none',
    },
    consent: {
      text: CONSENT,
      brandedContentText: BRANDED_CONSENT,
      when: 'Show text (brandedContentText when brand_content_toggle is true) to the user and post only after they agree.',
    },
  };
}

function ruleList(cannotPost: { code: string; reason: string } | null, maxDuration: number | null): string[] {
  const rules = [
    'Read this schema right before posting: privacy options and creator limits change.',
    `content is the video caption (at most ${L.videoCaptionMax}) or the photo description (at most ${L.photoDescriptionMax}); lengths count UTF-16 code units.`,
    `mediaIds: exactly 1 video, or ${L.imageMinCount} to ${L.imageMaxCount} images, never mixed; only READY media. Images: JPEG or WebP (a PNG upload is stored as JPEG), at most 20 MB. Videos: MP4, WebM or QuickTime, at most 4 GB, width and height ${L.videoMinSide} to ${L.videoMaxSide} px, ${L.videoMinFps} to ${L.videoMaxFps} fps, ${maxDuration === null ? "within the creator's duration limit" : `at most ${maxDuration} s long`}.`,
    'settings.content_posting_method is required and must be DIRECT_POST.',
    'settings.privacy_level is required, has no default and must be one of privacyLevelOptions as listed now; let the user choose.',
    'Interactions are off unless set: disable_comment, disable_duet and disable_stitch default to true; set false to allow. Those in disabledByCreator must stay true.',
    'Videos only: disable_duet, disable_stitch, video_cover_timestamp_ms (within the video). Photos only: title, photo_cover_index (an index into mediaIds), auto_add_music. Any other key is refused.',
    'Commercial content: disclose_commercial_content true needs brand_organic_toggle (your brand, "Promotional content") and/or brand_content_toggle (branded content, "Paid partnership"); either toggle needs disclose_commercial_content true.',
    `Branded content (brand_content_toggle true) cannot be private: privacy_level ${PRIVACY_SELF_ONLY} is refused with it.`,
    'is_aigc true labels the post as AI-generated.',
    'Show the consent text before posting and post only after the user agrees; TikTok may take a few minutes to process a post.',
    'Thread replies are not supported.',
  ];
  if (cannotPost) rules.unshift(`This account cannot post now (${cannotPost.code}): ${cannotPost.reason}.`);
  return rules;
}
