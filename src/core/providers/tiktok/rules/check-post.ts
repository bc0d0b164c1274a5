import type { CoreDeps, Scope } from '../../../context.js';
import type { MediaDoc } from '../../../media/documents.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import type { IssueDetail } from '../../../errors.js';
import { requirePostingPlatform } from '../../../platforms/platform-errors.js';
import { tiktokPostingRules } from './post-limits.js';
import type { TikTokPostMedia } from './media-rules.js';
import { tiktokPostKind, validateTikTokPost } from './post-rules.js';
import { readCreatorInfo } from './creator-info-cache.js';
import type { TikTokCaller } from '../rate-limiter.js';

/** A post's media ids resolved in order; `indexes[j]` is where `media[j]` stands in the ids. */
export interface LoadedMedia {
  media: TikTokPostMedia[];
  /** The documents behind `media`, in the same order. */
  docs: MediaDoc[];
  indexes: number[];
  /** Ids that are unknown or another workspace's, as issues at ['mediaIds', i]. */
  issues: IssueDetail[];
}

/** What is checked: the post's own fields, whether from a request or from a stored draft. */
export interface PostFields {
  content: string;
  settings: unknown;
  threadReplies: readonly unknown[];
}

/** Loads the media of `mediaIds` from the workspace (by `_id`, the fast lookup on FerretDB). */
export async function loadPostMedia(deps: CoreDeps, scope: Scope, mediaIds: readonly string[]): Promise<LoadedMedia> {
  const docs = await Promise.all(mediaIds.map((id) => deps.db.media.findOne({ _id: id })));
  const loaded: LoadedMedia = { media: [], docs: [], indexes: [], issues: [] };
  docs.forEach((doc, index) => {
    if (!doc || doc.workspaceId !== scope.workspaceId) {
      loaded.issues.push({ path: ['mediaIds', index], message: `media ${mediaIds[index]} was not found` });
      return;
    }
    loaded.media.push(toPostMedia(doc));
    loaded.docs.push(doc);
    loaded.indexes.push(index);
  });
  return loaded;
}

function toPostMedia(doc: MediaDoc): TikTokPostMedia {
  const facts = doc.thumbnailMetadata ?? {};
  const num = (key: string): number | null => (typeof facts[key] === 'number' ? facts[key] : null);
  return {
    id: doc._id,
    mediaType: doc.mediaType,
    mimeType: doc.mimeType,
    size: doc.size,
    status: doc.status,
    width: num('width'),
    height: num('height'),
    durationSec: num('durationSec'),
    fps: num('fps'),
  };
}

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

/** Summarises issues in one message (the details carry each one). */
export function issuesMessage(what: string, issues: readonly IssueDetail[]): string {
  const shown = issues.slice(0, 3).map((issue) => issue.message);
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return `${what} does not meet TikTok's rules: ${shown.join('; ')}${more}`;
}
