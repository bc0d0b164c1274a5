import { PRIVACY_SELF_ONLY, TIKTOK_LIMITS, type TikTokPostingRules, type TikTokPostKind } from './post-limits.js';

/** A JSON Schema document (draft 2020-12), as plain JSON. */
export type JsonSchema = { [key: string]: unknown };

/** The settings keys each kind of post accepts; any other key is refused. */
export const TIKTOK_SETTING_KEYS: Readonly<Record<TikTokPostKind, readonly string[]>> = Object.freeze({
  video: [
    'content_posting_method',
    'privacy_level',
    'disable_comment',
    'disable_duet',
    'disable_stitch',
    'video_cover_timestamp_ms',
    'disclose_commercial_content',
    'brand_content_toggle',
    'brand_organic_toggle',
    'is_aigc',
  ],
  photo: [
    'content_posting_method',
    'privacy_level',
    'title',
    'photo_cover_index',
    'disable_comment',
    'auto_add_music',
    'disclose_commercial_content',
    'brand_content_toggle',
    'brand_organic_toggle',
    'is_aigc',
  ],
});

const isTrue = (key: string): JsonSchema => ({ properties: { [key]: { const: true } }, required: [key] });

/**
 * The `settings` object of a post of this kind as JSON Schema (draft 2020-12), for this creator
 * now: privacy options exactly as TikTok returned them, interactions the creator disabled forced
 * off. What JSON Schema cannot say (UTF-16 lengths, cover index below the image count, cover
 * time within the video) is in the descriptions and enforced by `validateTikTokPost`.
 */
export function tiktokSettingsJsonSchema(rules: TikTokPostingRules, kind: TikTokPostKind): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    content_posting_method: { enum: ['DIRECT_POST'], description: 'Required; the only method Postdeck offers.' },
    privacy_level: {
      enum: [...rules.privacyLevelOptions],
      description: "Required, no default: who can see the post; one of the creator's current options.",
    },
    disable_comment: interaction(rules.commentDisabled, 'comments'),
  };
  if (kind === 'video') {
    properties.disable_duet = interaction(rules.duetDisabled, 'duets');
    properties.disable_stitch = interaction(rules.stitchDisabled, 'stitches');
    properties.video_cover_timestamp_ms = {
      type: 'integer',
      minimum: 0,
      maximum: TIKTOK_LIMITS.int32Max,
      description: 'Cover frame in milliseconds from the start, at most the video length; omitted: the first frame.',
    };
  } else {
    properties.title = {
      type: 'string',
      maxLength: TIKTOK_LIMITS.photoTitleMax,
      description: `Photo post title, at most ${TIKTOK_LIMITS.photoTitleMax} UTF-16 code units (an emoji usually counts 2); the post's content becomes the description.`,
    };
    properties.photo_cover_index = {
      type: 'integer',
      minimum: 0,
      maximum: TIKTOK_LIMITS.imageMaxCount - 1,
      default: 0,
      description: '0-based index into mediaIds of the cover image; below the number of images.',
    };
    properties.auto_add_music = {
      type: 'boolean',
      default: false,
      description: 'true lets TikTok add recommended music.',
    };
  }
  properties.disclose_commercial_content = {
    type: 'boolean',
    default: false,
    description: 'Commercial content disclosure; when true, set brand_organic_toggle and/or brand_content_toggle.',
  };
  properties.brand_organic_toggle = {
    type: 'boolean',
    default: false,
    description: 'Your brand: promotes the creator\'s own business (label "Promotional content").',
  };
  properties.brand_content_toggle = {
    type: 'boolean',
    default: false,
    description: `Branded content: a paid partnership for a third party (label "Paid partnership"); cannot be ${PRIVACY_SELF_ONLY}.`,
  };
  properties.is_aigc = { type: 'boolean', default: false, description: 'true labels the post as AI-generated.' };

  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: ['content_posting_method', 'privacy_level'],
    properties,
    allOf: [
      {
        if: isTrue('brand_content_toggle'),
        then: { properties: { privacy_level: { not: { const: PRIVACY_SELF_ONLY } } } },
      },
      {
        if: isTrue('disclose_commercial_content'),
        then: { anyOf: [isTrue('brand_organic_toggle'), isTrue('brand_content_toggle')] },
      },
      {
        if: { anyOf: [isTrue('brand_organic_toggle'), isTrue('brand_content_toggle')] },
        then: isTrue('disclose_commercial_content'),
      },
    ],
  };
}

// Postdeck keeps TikTok's `disable_*` names, so "off unless set" is a default of true.
function interaction(disabledByCreator: boolean, what: string): JsonSchema {
  if (disabledByCreator) {
    return {
      const: true,
      default: true,
      readOnly: true,
      description: `The creator has turned ${what} off on TikTok; always true.`,
    };
  }
  return { type: 'boolean', default: true, description: `false allows ${what}; omitted or true: ${what} off.` };
}
