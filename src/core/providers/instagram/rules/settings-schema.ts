import { FIT_JSON_SCHEMA } from './fit.js';
import { INSTAGRAM_LIMITS as L } from './limits.js';

/** The settings keys an Instagram post takes; any other key is refused. */
export const INSTAGRAM_SETTING_KEYS: readonly string[] = [
  'alt_text',
  'collaborators',
  'share_to_feed',
  'thumb_offset',
  'fit',
];

/** Instagram's settings as JSON Schema (draft 2020-12); what it cannot say is in the descriptions and the rules. */
export const INSTAGRAM_SETTINGS_JSON_SCHEMA = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: {
    alt_text: {
      type: 'array',
      items: { type: ['string', 'null'] },
      maxItems: L.carouselMaxItems,
      description:
        "Alt text per item, in mediaIds order (null or '' skips one); images only: a video's entry must be empty.",
    },
    collaborators: {
      type: 'array',
      items: { type: 'string', minLength: 1, pattern: '^[^@]' },
      minItems: 1,
      maxItems: L.maxCollaborators,
      description: `Instagram usernames (without @) invited as collaborators, at most ${L.maxCollaborators}.`,
    },
    share_to_feed: {
      type: 'boolean',
      description: 'Reels only: true also shows the Reel in the profile feed (Instagram’s default when omitted).',
    },
    thumb_offset: {
      type: 'integer',
      minimum: 0,
      description: "Reels only: the cover frame, in milliseconds from the start; below the video's length.",
    },
    fit: FIT_JSON_SCHEMA,
  },
});
