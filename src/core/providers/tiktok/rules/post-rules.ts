import type { IssueDetail } from '../../../errors.js';
import { PRIVACY_SELF_ONLY, TIKTOK_LIMITS, type TikTokPostingRules, type TikTokPostKind } from './post-limits.js';
import { TIKTOK_SETTING_KEYS } from './settings-schema.js';
import { checkTikTokMedia, type TikTokPostMedia } from './media-rules.js';

/** A create or publish request for one TikTok account, media resolved in `mediaIds` order. */
export interface TikTokPostInput {
  content: string;
  settings: unknown;
  media: readonly TikTokPostMedia[];
  threadReplies?: readonly unknown[] | undefined;
}

/** 'video' or 'photo' from the media list; null when it is empty or mixes images and videos. */
export function tiktokPostKind(media: readonly Pick<TikTokPostMedia, 'mediaType'>[]): TikTokPostKind | null {
  if (media.length === 0) return null;
  if (media.every((m) => m.mediaType === 'video')) return 'video';
  if (media.every((m) => m.mediaType === 'image')) return 'photo';
  return null;
}

/**
 * Every TikTok rule applied to one request; an empty list means TikTok should accept it. Paths
 * name request fields (`['settings', 'privacy_level']`, `['mediaIds', 3]`, `['content']`); a
 * problem with the account itself is at `['platformId']`.
 */
export function validateTikTokPost(rules: TikTokPostingRules, input: TikTokPostInput): IssueDetail[] {
  const issues: IssueDetail[] = [];
  if (rules.cannotPost) {
    issues.push({
      path: ['platformId'],
      message: `TikTok says this account cannot post now (${rules.cannotPost.code}): ${rules.cannotPost.reason}`,
    });
  }
  if (input.threadReplies && input.threadReplies.length > 0) {
    issues.push({ path: ['threadReplies'], message: 'TikTok does not support thread replies; send the post alone' });
  }
  const kind = tiktokPostKind(input.media);
  issues.push(...checkTikTokMedia(rules, input.media));
  checkContent(issues, input.content, kind);
  checkSettings(issues, rules, input, kind);
  return issues;
}

// `.length` counts UTF-16 code units, exactly TikTok's unit for titles and descriptions.
function checkContent(issues: IssueDetail[], content: string, kind: TikTokPostKind | null): void {
  const max = kind === 'photo' ? TIKTOK_LIMITS.photoDescriptionMax : TIKTOK_LIMITS.videoCaptionMax;
  const what = kind === 'photo' ? 'a photo description' : 'a video caption';
  if (kind !== null && content.length > max) {
    issues.push({
      path: ['content'],
      message: `content is ${content.length} UTF-16 code units; ${what} takes at most ${max} (an emoji usually counts 2)`,
    });
  }
}

function checkSettings(
  issues: IssueDetail[],
  rules: TikTokPostingRules,
  input: TikTokPostInput,
  kind: TikTokPostKind | null,
): void {
  const raw = input.settings;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    issues.push({ path: ['settings'], message: 'settings must be an object (see the platform schema)' });
    return;
  }
  const settings = raw as Record<string, unknown>;
  const at = (key: string): (string | number)[] => ['settings', key];
  const add = (key: string, message: string): number => issues.push({ path: at(key), message });

  const allowed = new Set(
    kind ? TIKTOK_SETTING_KEYS[kind] : [...TIKTOK_SETTING_KEYS.video, ...TIKTOK_SETTING_KEYS.photo],
  );
  for (const key of Object.keys(settings)) {
    if (allowed.has(key)) continue;
    const other = kind === 'video' ? 'photo' : 'video';
    if (kind && TIKTOK_SETTING_KEYS[other].includes(key)) add(key, `${key} is only for ${other} posts`);
    else add(key, `unknown setting ${key}; TikTok settings are listed in the platform schema`);
  }

  const method = settings.content_posting_method;
  if (method === undefined) add('content_posting_method', 'content_posting_method is required: DIRECT_POST');
  else if (method !== 'DIRECT_POST') add('content_posting_method', 'content_posting_method must be DIRECT_POST');

  const privacy = settings.privacy_level;
  const options = rules.privacyLevelOptions;
  if (privacy === undefined) {
    add('privacy_level', `privacy_level is required and has no default; one of ${options.join(', ') || '(none now)'}`);
  } else if (typeof privacy !== 'string' || !options.includes(privacy)) {
    add(
      'privacy_level',
      options.length > 0
        ? `privacy_level must be one of the creator's current options: ${options.join(', ')}`
        : 'TikTok gave no privacy options for this account now, so no privacy_level can be accepted',
    );
  }

  const bools: Record<string, boolean> = {};
  for (const key of allowed) {
    const value = settings[key];
    if (value === undefined || !isBooleanSetting(key)) continue;
    if (typeof value !== 'boolean') add(key, `${key} must be true or false`);
    else bools[key] = value;
  }
  checkInteractions(add, rules, bools, kind);
  checkCommercial(add, bools, privacy);
  checkKindSettings(add, settings, input, kind);
}

const BOOLEAN_SETTINGS = new Set([
  'disable_comment',
  'disable_duet',
  'disable_stitch',
  'auto_add_music',
  'disclose_commercial_content',
  'brand_content_toggle',
  'brand_organic_toggle',
  'is_aigc',
]);

function isBooleanSetting(key: string): boolean {
  return BOOLEAN_SETTINGS.has(key);
}

type Add = (key: string, message: string) => void;

function checkInteractions(
  add: Add,
  rules: TikTokPostingRules,
  bools: Record<string, boolean>,
  kind: TikTokPostKind | null,
): void {
  const forced: [string, boolean, string][] = [['disable_comment', rules.commentDisabled, 'comments']];
  if (kind !== 'photo') {
    forced.push(['disable_duet', rules.duetDisabled, 'duets'], ['disable_stitch', rules.stitchDisabled, 'stitches']);
  }
  for (const [key, disabledByCreator, what] of forced) {
    if (disabledByCreator && bools[key] === false) {
      add(key, `the creator has turned ${what} off on TikTok, so ${key} must be true (or omitted)`);
    }
  }
}

function checkCommercial(add: Add, bools: Record<string, boolean>, privacy: unknown): void {
  const branded = bools.brand_content_toggle === true;
  const own = bools.brand_organic_toggle === true;
  if (branded && privacy === PRIVACY_SELF_ONLY) {
    add('privacy_level', `Branded content visibility cannot be set to private (${PRIVACY_SELF_ONLY})`);
  }
  if (bools.disclose_commercial_content === true && !branded && !own) {
    add(
      'disclose_commercial_content',
      'You need to indicate if your content promotes yourself (brand_organic_toggle), a third party (brand_content_toggle), or both',
    );
  }
  if ((branded || own) && bools.disclose_commercial_content !== true) {
    add(
      branded ? 'brand_content_toggle' : 'brand_organic_toggle',
      'set disclose_commercial_content to true to mark the post as commercial content',
    );
  }
}

function checkKindSettings(
  add: Add,
  settings: Record<string, unknown>,
  input: TikTokPostInput,
  kind: TikTokPostKind | null,
): void {
  if (kind === 'photo') {
    const title = settings.title;
    if (title !== undefined) {
      if (typeof title !== 'string') add('title', 'title must be a string');
      else if (title.length > TIKTOK_LIMITS.photoTitleMax) {
        add(
          'title',
          `title is ${title.length} UTF-16 code units; a photo title takes at most ${TIKTOK_LIMITS.photoTitleMax} (an emoji usually counts 2)`,
        );
      }
    }
    const cover = settings.photo_cover_index;
    if (
      cover !== undefined &&
      !(Number.isInteger(cover) && (cover as number) >= 0 && (cover as number) < input.media.length)
    ) {
      add(
        'photo_cover_index',
        `photo_cover_index must be an integer from 0 to ${input.media.length - 1} (an index into mediaIds)`,
      );
    }
  }
  if (kind === 'video') {
    const at = settings.video_cover_timestamp_ms;
    if (at === undefined) return;
    const durationMs = input.media[0]?.durationSec != null ? Math.floor(input.media[0].durationSec * 1000) : null;
    const max = Math.min(durationMs ?? TIKTOK_LIMITS.int32Max, TIKTOK_LIMITS.int32Max);
    if (!Number.isInteger(at) || (at as number) < 0 || (at as number) > max) {
      add(
        'video_cover_timestamp_ms',
        `video_cover_timestamp_ms must be an integer from 0 to ${max} (milliseconds into the video)`,
      );
    }
  }
}
