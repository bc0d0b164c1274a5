import { describe, expect, it } from 'vitest';
import type { TikTokCreatorInfo, TikTokCreatorInfoResult } from '../../src/core/providers/tiktok/creator-info.js';
import { toTikTokPostFields } from '../../src/core/providers/tiktok/rules/post-fields.js';
import { tiktokPostingRules } from '../../src/core/providers/tiktok/rules/post-limits.js';
import type { TikTokPostMedia } from '../../src/core/providers/tiktok/rules/media-rules.js';
import {
  tiktokPostKind,
  validateTikTokPost,
  type TikTokPostInput,
} from '../../src/core/providers/tiktok/rules/post-rules.js';

function creator(overrides: Partial<TikTokCreatorInfo> = {}, cannotPost: TikTokCreatorInfoResult['cannotPost'] = null) {
  const info: TikTokCreatorInfo = {
    avatarUrl: 'https://example.test/a.jpg',
    username: 'catstudio',
    nickname: 'Cat Studio',
    privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    commentDisabled: false,
    duetDisabled: false,
    stitchDisabled: false,
    maxVideoPostDurationSec: 300,
    ...overrides,
  };
  return tiktokPostingRules({ info, cannotPost });
}

const RULES = creator();
const MB = 1024 * 1024;

const video = (o: Partial<TikTokPostMedia> = {}): TikTokPostMedia => ({
  id: 'v1',
  mediaType: 'video',
  mimeType: 'video/mp4',
  size: 10 * MB,
  status: 'READY',
  width: 1080,
  height: 1920,
  durationSec: 30,
  fps: 30,
  ...o,
});
const image = (i: number, o: Partial<TikTokPostMedia> = {}): TikTokPostMedia => ({
  id: `i${i}`,
  mediaType: 'image',
  mimeType: 'image/jpeg',
  size: 500_000,
  status: 'READY',
  width: 1080,
  height: 1350,
  ...o,
});
const images = (n: number): TikTokPostMedia[] => Array.from({ length: n }, (_, i) => image(i));

const BASE = { content_posting_method: 'DIRECT_POST', privacy_level: 'PUBLIC_TO_EVERYONE' };

function videoPost(settings: Record<string, unknown> = {}, rest: Partial<TikTokPostInput> = {}): TikTokPostInput {
  return { content: 'A cat #cats', settings: { ...BASE, ...settings }, media: [video()], ...rest };
}
function photoPost(settings: Record<string, unknown> = {}, rest: Partial<TikTokPostInput> = {}): TikTokPostInput {
  return { content: 'Three cats', settings: { ...BASE, ...settings }, media: images(3), ...rest };
}

/** The paths of the issues, to compare compactly; messages are checked where they matter. */
const paths = (input: TikTokPostInput, rules = RULES) => validateTikTokPost(rules, input).map((i) => i.path);
const only = (input: TikTokPostInput, rules = RULES) => {
  const issues = validateTikTokPost(rules, input);
  expect(issues).toHaveLength(1);
  return issues[0]!;
};

describe('validateTikTokPost: valid posts', () => {
  it('accepts a minimal video and a minimal photo post', () => {
    expect(validateTikTokPost(RULES, videoPost())).toEqual([]);
    expect(validateTikTokPost(RULES, photoPost())).toEqual([]);
  });

  it('accepts every setting of its kind', () => {
    const common = {
      disable_comment: false,
      disclose_commercial_content: true,
      brand_organic_toggle: true,
      brand_content_toggle: true,
      is_aigc: true,
    };
    expect(
      validateTikTokPost(
        RULES,
        videoPost({ ...common, disable_duet: false, disable_stitch: true, video_cover_timestamp_ms: 1500 }),
      ),
    ).toEqual([]);
    expect(
      validateTikTokPost(RULES, photoPost({ ...common, title: 'Cats', photo_cover_index: 2, auto_add_music: true })),
    ).toEqual([]);
  });

  it('accepts the edges: 35 images, a video exactly at the creator limit, 23.976 and 60 fps, 360 and 4096 px', () => {
    expect(paths(photoPost({}, { media: images(35) }))).toEqual([]);
    expect(
      paths(videoPost({}, { media: [video({ durationSec: 300, fps: 23.976, width: 360, height: 4096 })] })),
    ).toEqual([]);
    expect(paths(videoPost({}, { media: [video({ fps: 60 })] }))).toEqual([]);
  });

  it('does not hold unreadable video facts (null) against the file', () => {
    const unknown = video({ width: null, height: null, durationSec: null, fps: null, mimeType: 'video/webm' });
    expect(paths(videoPost({ video_cover_timestamp_ms: 90_000 }, { media: [unknown] }))).toEqual([]);
  });
});

describe('validateTikTokPost: content lengths count UTF-16 code units', () => {
  it('takes a video caption of 2200 units and refuses 2201', () => {
    expect(paths(videoPost({}, { content: 'a'.repeat(2200) }))).toEqual([]);
    expect(only(videoPost({}, { content: 'a'.repeat(2201) }))).toEqual({
      path: ['content'],
      message: expect.stringContaining('at most 2200'),
    });
  });

  it('counts an emoji as 2: 1100 emoji fit a caption, 1101 do not', () => {
    expect('😀'.length).toBe(2);
    expect(paths(videoPost({}, { content: '😀'.repeat(1100) }))).toEqual([]);
    expect(only(videoPost({}, { content: '😀'.repeat(1101) })).message).toMatch(/2202 UTF-16 code units/);
  });

  it('takes a photo description of 4000 units and refuses 4001', () => {
    expect(paths(photoPost({}, { content: 'é'.repeat(4000) }))).toEqual([]);
    expect(paths(photoPost({}, { content: 'é'.repeat(4001) }))).toEqual([['content']]);
  });

  it('takes a photo title of 90 units (45 emoji) and refuses 92', () => {
    expect(paths(photoPost({ title: '🐈'.repeat(45) }))).toEqual([]);
    expect(only(photoPost({ title: '🐈'.repeat(46) }))).toEqual({
      path: ['settings', 'title'],
      message: expect.stringContaining('92 UTF-16 code units'),
    });
    expect(paths(photoPost({ title: 5 }))).toEqual([['settings', 'title']]);
  });
});

describe('validateTikTokPost: settings', () => {
  it('requires content_posting_method DIRECT_POST', () => {
    const { content_posting_method: _omit, ...withoutMethod } = BASE;
    expect(only({ ...videoPost(), settings: withoutMethod })).toEqual({
      path: ['settings', 'content_posting_method'],
      message: expect.stringContaining('required'),
    });
    expect(paths(videoPost({ content_posting_method: 'MEDIA_UPLOAD' }))).toEqual([
      ['settings', 'content_posting_method'],
    ]);
  });

  it('requires privacy_level, with no default, from the current options only', () => {
    expect(only({ ...videoPost(), settings: { content_posting_method: 'DIRECT_POST' } })).toEqual({
      path: ['settings', 'privacy_level'],
      message: expect.stringContaining('no default'),
    });
    expect(only(videoPost({ privacy_level: 'FOLLOWER_OF_CREATOR' }))).toEqual({
      path: ['settings', 'privacy_level'],
      message: expect.stringContaining('PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, SELF_ONLY'),
    });
    expect(paths(videoPost({ privacy_level: 3 }))).toEqual([['settings', 'privacy_level']]);
    // A private account's options: PUBLIC_TO_EVERYONE is not current any more.
    const priv = creator({ privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'] });
    expect(paths(videoPost(), priv)).toEqual([['settings', 'privacy_level']]);
    expect(paths(videoPost({ privacy_level: 'FOLLOWER_OF_CREATOR' }), priv)).toEqual([]);
  });

  it('refuses unknown keys, and keys of the other kind of post', () => {
    expect(only(videoPost({ allow_comment: true }))).toEqual({
      path: ['settings', 'allow_comment'],
      message: expect.stringContaining('unknown setting'),
    });
    for (const key of ['title', 'photo_cover_index', 'auto_add_music']) {
      expect(only(videoPost({ [key]: key === 'title' ? 'x' : key === 'photo_cover_index' ? 0 : true }))).toEqual({
        path: ['settings', key],
        message: `${key} is only for photo posts`,
      });
    }
    for (const key of ['disable_duet', 'disable_stitch', 'video_cover_timestamp_ms']) {
      expect(only(photoPost({ [key]: key === 'video_cover_timestamp_ms' ? 0 : true }))).toEqual({
        path: ['settings', key],
        message: `${key} is only for video posts`,
      });
    }
  });

  it('refuses settings that are not an object', () => {
    for (const settings of [null, [], 'x']) {
      expect(paths({ ...videoPost(), settings })).toEqual([['settings']]);
    }
  });

  it('refuses non-boolean switches', () => {
    expect(paths(videoPost({ disable_comment: 'no', is_aigc: 1 }))).toEqual([
      ['settings', 'disable_comment'],
      ['settings', 'is_aigc'],
    ]);
  });

  it('keeps interactions the creator disabled off', () => {
    const strict = creator({ commentDisabled: true, duetDisabled: true, stitchDisabled: true });
    expect(paths(videoPost(), strict)).toEqual([]);
    expect(paths(videoPost({ disable_comment: true, disable_duet: true, disable_stitch: true }), strict)).toEqual([]);
    const issues = validateTikTokPost(
      strict,
      videoPost({ disable_comment: false, disable_duet: false, disable_stitch: false }),
    );
    expect(issues.map((i) => i.path)).toEqual([
      ['settings', 'disable_comment'],
      ['settings', 'disable_duet'],
      ['settings', 'disable_stitch'],
    ]);
    expect(issues[0]!.message).toMatch(/turned comments off/);
    // Allowing what the creator allows is fine.
    expect(paths(videoPost({ disable_comment: false, disable_duet: false, disable_stitch: false }))).toEqual([]);
    expect(paths(photoPost({ disable_comment: false }), strict)).toEqual([['settings', 'disable_comment']]);
  });

  it('refuses branded content with SELF_ONLY, but not your-brand content', () => {
    const branded = { disclose_commercial_content: true, brand_content_toggle: true, privacy_level: 'SELF_ONLY' };
    expect(only(videoPost(branded))).toEqual({
      path: ['settings', 'privacy_level'],
      message: expect.stringContaining('Branded content visibility cannot be set to private'),
    });
    expect(paths(photoPost(branded))).toEqual([['settings', 'privacy_level']]);
    expect(
      paths(videoPost({ disclose_commercial_content: true, brand_organic_toggle: true, privacy_level: 'SELF_ONLY' })),
    ).toEqual([]);
  });

  it('needs a toggle when disclosure is on, and disclosure when a toggle is on', () => {
    expect(only(videoPost({ disclose_commercial_content: true }))).toEqual({
      path: ['settings', 'disclose_commercial_content'],
      message: expect.stringContaining('You need to indicate if your content promotes yourself'),
    });
    expect(paths(videoPost({ disclose_commercial_content: true, brand_organic_toggle: false }))).toEqual([
      ['settings', 'disclose_commercial_content'],
    ]);
    expect(paths(videoPost({ brand_content_toggle: true }))).toEqual([['settings', 'brand_content_toggle']]);
    expect(paths(photoPost({ brand_organic_toggle: true }))).toEqual([['settings', 'brand_organic_toggle']]);
    expect(paths(videoPost({ disclose_commercial_content: false, brand_organic_toggle: false }))).toEqual([]);
  });

  it('keeps photo_cover_index inside the image list', () => {
    expect(paths(photoPost({ photo_cover_index: 2 }))).toEqual([]);
    for (const bad of [3, -1, 1.5, '0']) {
      expect(paths(photoPost({ photo_cover_index: bad }))).toEqual([['settings', 'photo_cover_index']]);
    }
  });

  it('keeps video_cover_timestamp_ms inside the video', () => {
    expect(paths(videoPost({ video_cover_timestamp_ms: 30_000 }))).toEqual([]);
    for (const bad of [30_001, -1, 2.5, 'x']) {
      expect(paths(videoPost({ video_cover_timestamp_ms: bad }))).toEqual([['settings', 'video_cover_timestamp_ms']]);
    }
  });
});

describe('validateTikTokPost: media', () => {
  it('needs media', () => {
    expect(only(videoPost({}, { media: [] }))).toEqual({
      path: ['mediaIds'],
      message: expect.stringMatching(/need media/),
    });
  });

  it('refuses mixing images and a video', () => {
    const issues = validateTikTokPost(RULES, { ...videoPost(), media: [image(0), video()] });
    expect(issues).toContainEqual({ path: ['mediaIds'], message: expect.stringContaining('never both') });
    expect(tiktokPostKind([image(0), video()])).toBeNull();
  });

  it('takes exactly one video and at most 35 images', () => {
    expect(only(videoPost({}, { media: [video(), video({ id: 'v2' })] })).message).toMatch(/exactly one video, not 2/);
    expect(only(photoPost({}, { media: images(36) }))).toEqual({
      path: ['mediaIds'],
      message: expect.stringContaining('1 to 35 images, not 36'),
    });
  });

  it('points at the offending media item', () => {
    const media = [image(0), image(1), image(2, { mimeType: 'image/png' }), image(3, { size: 21 * MB })];
    const issues = validateTikTokPost(RULES, photoPost({}, { media }));
    expect(issues).toEqual([
      { path: ['mediaIds', 2], message: expect.stringContaining('JPEG or WebP') },
      { path: ['mediaIds', 3], message: expect.stringContaining('20 MB') },
    ]);
    expect(paths(photoPost({}, { media: [image(0, { status: 'PENDING' })] }))).toEqual([['mediaIds', 0]]);
    expect(paths(photoPost({}, { media: [image(0, { mediaType: 'audio' })] }))).toEqual([['mediaIds', 0]]);
    // Large images are converted at publish, not refused.
    expect(paths(photoPost({}, { media: [image(0, { width: 4000, height: 3000 })] }))).toEqual([]);
  });

  it('checks a video’s type, size, sides and frame rate', () => {
    const bad: [Partial<TikTokPostMedia>, RegExp][] = [
      [{ mimeType: 'video/x-matroska' }, /MP4, WebM or QuickTime/],
      [{ size: 4 * 1024 * MB + 1 }, /up to 4 GB/],
      [{ width: 359 }, /width is 359 px/],
      [{ height: 4097 }, /height is 4097 px/],
      [{ fps: 22.9 }, /22.9 fps/],
      [{ fps: 61 }, /61 fps/],
    ];
    for (const [override, message] of bad) {
      expect(only(videoPost({}, { media: [video(override)] }))).toEqual({
        path: ['mediaIds', 0],
        message: expect.stringMatching(message),
      });
    }
  });

  it('refuses a video longer than this creator may post', () => {
    expect(only(videoPost({}, { media: [video({ durationSec: 300.5 })] }))).toEqual({
      path: ['mediaIds', 0],
      message: expect.stringContaining('this creator can post videos up to 300 s'),
    });
    expect(
      paths(videoPost({}, { media: [video({ durationSec: 300.5 })] }), creator({ maxVideoPostDurationSec: 600 })),
    ).toEqual([]);
  });
});

describe('validateTikTokPost: account and replies', () => {
  it('refuses a post when the creator cannot post now, with TikTok’s code and reason', () => {
    const rules = creator({}, { code: 'spam_risk_user_banned_from_posting', message: 'banned' });
    expect(only(videoPost(), rules)).toEqual({
      path: ['platformId'],
      message: expect.stringMatching(/cannot post now \(spam_risk_user_banned_from_posting\): TikTok has banned/),
    });
  });

  it('with no creator data, accepts no privacy level', () => {
    const rules = tiktokPostingRules({ info: null, cannotPost: { code: 'reached_active_user_cap', message: 'x' } });
    expect(paths(videoPost(), rules)).toEqual([['platformId'], ['settings', 'privacy_level']]);
  });

  it('refuses thread replies', () => {
    expect(only(videoPost({}, { threadReplies: [{ text: 'more' }] }))).toEqual({
      path: ['threadReplies'],
      message: expect.stringContaining('TikTok does not support thread replies'),
    });
    expect(paths(videoPost({}, { threadReplies: [] }))).toEqual([]);
  });
});

describe('toTikTokPostFields', () => {
  it('sends a minimal video with interactions off and toggles false', () => {
    expect(toTikTokPostFields('video', 'A cat #cats', BASE)).toEqual({
      post_info: {
        privacy_level: 'PUBLIC_TO_EVERYONE',
        title: 'A cat #cats',
        disable_comment: true,
        disable_duet: true,
        disable_stitch: true,
        brand_content_toggle: false,
        brand_organic_toggle: false,
        is_aigc: false,
      },
    });
  });

  it('sends a video’s chosen settings as TikTok names them, and no empty title', () => {
    const settings = {
      ...BASE,
      disable_comment: false,
      disable_duet: false,
      disable_stitch: true,
      video_cover_timestamp_ms: 1500,
      disclose_commercial_content: true,
      brand_content_toggle: true,
      is_aigc: true,
    };
    expect(toTikTokPostFields('video', '', settings)).toEqual({
      post_info: {
        privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_comment: false,
        disable_duet: false,
        disable_stitch: true,
        video_cover_timestamp_ms: 1500,
        brand_content_toggle: true,
        brand_organic_toggle: false,
        is_aigc: true,
      },
    });
  });

  it('sends a photo post with content as description, is_aigc at the top and the cover index in source_info', () => {
    const settings = { ...BASE, title: 'Cats', photo_cover_index: 2, auto_add_music: true, is_aigc: true };
    expect(toTikTokPostFields('photo', 'Three cats', settings)).toEqual({
      media_type: 'PHOTO',
      post_mode: 'DIRECT_POST',
      post_info: {
        privacy_level: 'PUBLIC_TO_EVERYONE',
        title: 'Cats',
        description: 'Three cats',
        disable_comment: true,
        auto_add_music: true,
        brand_content_toggle: false,
        brand_organic_toggle: false,
      },
      is_aigc: true,
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: 2 },
    });
    expect(toTikTokPostFields('photo', '', BASE)).toMatchObject({
      post_info: { disable_comment: true, auto_add_music: false },
      is_aigc: false,
      source_info: { photo_cover_index: 0 },
    });
  });
});
