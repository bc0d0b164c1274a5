/**
 * Typical `settings` of a TikTok post, as the posting schema (`tiktokSettingsJsonSchema`) states
 * them for a creator who allows comments, duets and stitches and offers every privacy level. They
 * are examples for the API reference: a real post takes `privacy_level` from the creator's own
 * options in `GET /platforms/{id}/schema`. A test checks each against the posting schema.
 */
export const TIKTOK_SETTINGS_EXAMPLES = Object.freeze({
  /** A photo carousel: its title, the cover, TikTok's music, comments on. */
  photo: Object.freeze({
    content_posting_method: 'DIRECT_POST',
    privacy_level: 'PUBLIC_TO_EVERYONE',
    title: 'Three cafés worth the walk',
    photo_cover_index: 0,
    auto_add_music: true,
    disable_comment: false,
  }),
  /** A video: comments, duets and stitches on, the cover at 1.5 s, labelled as AI-generated. */
  video: Object.freeze({
    content_posting_method: 'DIRECT_POST',
    privacy_level: 'PUBLIC_TO_EVERYONE',
    disable_comment: false,
    disable_duet: false,
    disable_stitch: false,
    video_cover_timestamp_ms: 1500,
    is_aigc: true,
  }),
  /** What every post needs and no more: visible only to the creator (what an unaudited TikTok app may post). */
  minimal: Object.freeze({ content_posting_method: 'DIRECT_POST', privacy_level: 'SELF_ONLY' }),
  /** Promoting the creator's own business: the disclosure and its toggle go together. */
  promotion: Object.freeze({
    content_posting_method: 'DIRECT_POST',
    privacy_level: 'PUBLIC_TO_EVERYONE',
    disclose_commercial_content: true,
    brand_organic_toggle: true,
  }),
});
