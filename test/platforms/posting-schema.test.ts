import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TikTokCreatorInfo, TikTokCreatorInfoResult } from '../../src/core/providers/tiktok/creator-info.js';
import {
  buildTikTokPostingSchema,
  PostingSchemaBodySchema,
} from '../../src/core/providers/tiktok/rules/posting-schema.js';
import { TIKTOK_SETTING_KEYS } from '../../src/core/providers/tiktok/rules/settings-schema.js';

const PLATFORM = { id: '0f8fad5b-d9cb-469f-a165-70867728950e', displayName: 'Cat Studio', displayHandle: 'catstudio' };
const CHECKED_AT = new Date('2026-05-09T10:00:00.000Z');

function creator(overrides: Partial<TikTokCreatorInfo> = {}, cannotPost: TikTokCreatorInfoResult['cannotPost'] = null) {
  const info: TikTokCreatorInfo = {
    avatarUrl: 'https://example.test/a.jpg',
    username: 'catstudio',
    nickname: 'Cat Studio ✨',
    privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    commentDisabled: false,
    duetDisabled: false,
    stitchDisabled: true,
    maxVideoPostDurationSec: 300,
    ...overrides,
  };
  return { info, cannotPost } satisfies TikTokCreatorInfoResult;
}

const build = (result: TikTokCreatorInfoResult) =>
  buildTikTokPostingSchema({ platform: PLATFORM, creator: result, checkedAt: CHECKED_AT });

type Props = Record<string, Record<string, unknown>>;
const props = (schema: Record<string, unknown>): Props => schema.properties as Props;

describe('buildTikTokPostingSchema', () => {
  it('carries the live creator facts: names, privacy options as returned, disabled interactions, max duration', () => {
    const body = build(creator({ privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'] }));
    expect(body).toMatchObject({
      platformId: PLATFORM.id,
      provider: 'tiktok',
      checkedAt: '2026-05-09T10:00:00.000Z',
      account: {
        displayName: 'Cat Studio',
        displayHandle: 'catstudio',
        creatorNickname: 'Cat Studio ✨',
        creatorUsername: 'catstudio',
      },
      canPost: true,
      cannotPost: null,
      privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      disabledByCreator: { comment: false, duet: false, stitch: true },
      media: { video: { maxDurationSec: 300 } },
    });
    for (const kind of ['video', 'photo'] as const) {
      const privacy = props(body.settings[kind]).privacy_level!;
      expect(privacy.enum).toEqual(['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']);
      expect(privacy).not.toHaveProperty('default');
    }
  });

  it('states the contract limits, in UTF-16 code units', () => {
    const body = build(creator());
    expect(body.content).toEqual({
      unit: expect.stringContaining('UTF-16 code units'),
      video: { maxLength: 2200, sentAs: expect.any(String) },
      photo: { maxLength: 4000, sentAs: expect.any(String), titleMaxLength: 90 },
    });
    expect(body.media.video).toEqual({
      count: 1,
      mimeTypes: ['video/mp4', 'video/webm', 'video/quicktime'],
      maxBytes: 4 * 1024 ** 3,
      minSidePx: 360,
      maxSidePx: 4096,
      minFps: 23,
      maxFps: 60,
      maxDurationSec: 300,
    });
    expect(body.media.image).toMatchObject({
      minCount: 1,
      maxCount: 35,
      mimeTypes: ['image/jpeg', 'image/webp'],
      maxBytes: 20 * 1024 ** 2,
      oversize: expect.stringContaining('JPEG'),
    });
    expect(body.media.rule).toMatch(/exactly 1 video, or 1 to 35 images, never mixed/);
    expect(props(body.settings.photo).title).toMatchObject({ type: 'string', maxLength: 90 });
  });

  it('gives each kind of post its own settings schema (draft 2020-12), with the same keys the validator takes', () => {
    const body = build(creator());
    for (const kind of ['video', 'photo'] as const) {
      const schema = body.settings[kind];
      expect(schema).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        additionalProperties: false,
        required: ['content_posting_method', 'privacy_level'],
      });
      expect(Object.keys(props(schema)).sort()).toEqual([...TIKTOK_SETTING_KEYS[kind]].sort());
      expect(props(schema).content_posting_method).toMatchObject({ enum: ['DIRECT_POST'] });
      expect(props(schema).brand_content_toggle).toMatchObject({ type: 'boolean', default: false });
      expect(props(schema).brand_organic_toggle).toMatchObject({ type: 'boolean', default: false });
      expect(props(schema).is_aigc).toMatchObject({ type: 'boolean', default: false });
    }
    expect(props(body.settings.video)).not.toHaveProperty('auto_add_music');
    expect(props(body.settings.photo)).not.toHaveProperty('disable_duet');
    expect(props(body.settings.photo).auto_add_music).toMatchObject({ type: 'boolean', default: false });
    expect(props(body.settings.photo).photo_cover_index).toMatchObject({ type: 'integer', minimum: 0, maximum: 34 });
    expect(props(body.settings.video).video_cover_timestamp_ms).toMatchObject({ type: 'integer', minimum: 0 });
  });

  it('defaults interactions to off and pins those the creator disabled', () => {
    const body = build(creator({ commentDisabled: true, duetDisabled: false, stitchDisabled: true }));
    const video = props(body.settings.video);
    expect(video.disable_comment).toMatchObject({ const: true, default: true, readOnly: true });
    expect(video.disable_stitch).toMatchObject({ const: true, default: true, readOnly: true });
    expect(video.disable_duet).toEqual({ type: 'boolean', default: true, description: expect.any(String) });
    expect(props(body.settings.photo).disable_comment).toMatchObject({ const: true, readOnly: true });
  });

  it('expresses the commercial content rules in JSON Schema and in words', () => {
    const body = build(creator());
    const allOf = body.settings.video.allOf as Record<string, unknown>[];
    expect(allOf).toContainEqual({
      if: { properties: { brand_content_toggle: { const: true } }, required: ['brand_content_toggle'] },
      then: { properties: { privacy_level: { not: { const: 'SELF_ONLY' } } } },
    });
    expect(allOf).toContainEqual({
      if: { properties: { disclose_commercial_content: { const: true } }, required: ['disclose_commercial_content'] },
      then: {
        anyOf: [
          { properties: { brand_organic_toggle: { const: true } }, required: ['brand_organic_toggle'] },
          { properties: { brand_content_toggle: { const: true } }, required: ['brand_content_toggle'] },
        ],
      },
    });
    expect(body.rules.join('\n')).toMatch(/cannot be private: privacy_level SELF_ONLY/);
    expect(body.rules.join('\n')).toMatch(/disclose_commercial_content true needs brand_organic_toggle/);
  });

  it('says thread replies are unsupported and carries the consent texts', () => {
    const body = build(creator());
    expect(body.threadReplies).toEqual({
      supported: false,
      reason: expect.any(String),
      maxReplies: 0,
      mediaPerReply: 'none',
    });
    expect(body.consent.text).toBe("By posting, you agree to TikTok's Music Usage Confirmation.");
    expect(body.consent.brandedContentText).toMatch(/Branded Content Policy/);
  });

  it('never offers more than TikTok’s 600 s ceiling', () => {
    expect(build(creator({ maxVideoPostDurationSec: 900 })).media.video.maxDurationSec).toBe(600);
  });

  it('says when the creator cannot post, with TikTok’s code and a plain reason, and still carries what it can', () => {
    const body = build(creator({}, { code: 'spam_risk_too_many_posts', message: 'too many' }));
    expect(body.canPost).toBe(false);
    expect(body.cannotPost).toEqual({
      code: 'spam_risk_too_many_posts',
      reason: expect.stringMatching(/too many times/),
    });
    expect(body.rules[0]).toMatch(/cannot post now \(spam_risk_too_many_posts\)/);
    expect(body.privacyLevelOptions).toEqual(['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']);
  });

  it('with no creator data at all, offers nothing it cannot vouch for', () => {
    const body = build({ info: null, cannotPost: { code: 'reached_active_user_cap', message: '' } });
    expect(body).toMatchObject({
      canPost: false,
      cannotPost: { code: 'reached_active_user_cap', reason: expect.stringMatching(/cap/) },
      account: { displayName: 'Cat Studio', creatorNickname: null, creatorUsername: null },
      privacyLevelOptions: [],
      disabledByCreator: { comment: true, duet: true, stitch: true },
      media: { video: { maxDurationSec: null } },
    });
    expect(props(body.settings.video).privacy_level!.enum).toEqual([]);
  });

  it('is plain JSON that its own zod schema (the OpenAPI component PostingSchema) accepts', () => {
    const body = build(creator());
    expect(JSON.parse(JSON.stringify(body))).toEqual(body);
    expect(PostingSchemaBodySchema.parse(body)).toEqual(body);
    // The registered id makes the JSON Schema a $ref to a PostingSchema definition, as in the OpenAPI doc.
    const doc = z.toJSONSchema(PostingSchemaBodySchema) as { $defs?: Record<string, { properties: object }> };
    expect(Object.keys(doc.$defs?.PostingSchema?.properties ?? {})).toContain('settings');
    expect(z.globalRegistry.get(PostingSchemaBodySchema)).toMatchObject({ id: 'PostingSchema' });
  });
});
