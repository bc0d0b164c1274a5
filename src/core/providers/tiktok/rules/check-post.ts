import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import type { IssueDetail } from '../../../errors.js';
import { requirePostingPlatform } from '../connect/platform-errors.js';
import { tiktokPostingRules } from './post-limits.js';
import type { LoadedMedia, PostFields } from '../../port.js';
import { tiktokPostKind, validateTikTokPost } from './post-rules.js';
import { readCreatorInfo } from './creator-info-cache.js';
import type { TikTokCaller } from '../rate-limiter.js';

/**
 * Checks a post against TikTok's rules for this creator now (creator info at most half a minute
 * old; `caller` says whether a request or the publishing engine asks, see readCreatorInfo).
 * Issue paths are the validator's (`['settings', 'privacy_level']`, `['platformId']`), with media
 * indexes pointing into the post's own `mediaIds`. `settings` is what to store when there are no
 * issues: the given settings with the interaction defaults written out (off unless allowed).
 */
export async function checkTikTokPost(
  deps: CoreDeps,
  platform: PlatformDoc,
  fields: PostFields,
  loaded: LoadedMedia,
  caller: TikTokCaller,
): Promise<{ issues: IssueDetail[]; settings: Record<string, unknown> }> {
  requirePostingPlatform(platform);
  const creator = await readCreatorInfo(deps, platform, caller);
  const found = validateTikTokPost(tiktokPostingRules(creator), {
    content: fields.content,
    settings: fields.settings,
    media: loaded.media,
    threadReplies: fields.threadReplies,
  });
  const issues = [
    ...loaded.issues,
    ...found.map((issue) =>
      issue.path[0] === 'mediaIds' && typeof issue.path[1] === 'number'
        ? { ...issue, path: ['mediaIds', loaded.indexes[issue.path[1]] ?? issue.path[1], ...issue.path.slice(2)] }
        : issue,
    ),
  ];
  const given = (fields.settings ?? {}) as Record<string, unknown>;
  return { issues, settings: withInteractionDefaults(given, tiktokPostKind(loaded.media)) };
}

// Omitted interactions are off (`disable_*` true); storing that makes the post show what will be sent.
function withInteractionDefaults(
  settings: Record<string, unknown>,
  kind: ReturnType<typeof tiktokPostKind>,
): Record<string, unknown> {
  const keys = kind === 'video' ? ['disable_comment', 'disable_duet', 'disable_stitch'] : ['disable_comment'];
  const defaults = Object.fromEntries(keys.filter((key) => settings[key] === undefined).map((key) => [key, true]));
  return { ...settings, ...defaults };
}
