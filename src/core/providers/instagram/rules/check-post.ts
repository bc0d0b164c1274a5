import type { CoreDeps } from '../../../context.js';
import { AppError, type IssueDetail } from '../../../errors.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import type { LoadedMedia, PostFields, ProviderCaller } from '../../port.js';
import { platformDisconnected, reconnectNeeded } from '../connect/platform-errors.js';
import { hashtagsOf, INSTAGRAM_LIMITS as L, mentionsOf } from './limits.js';
import { instagramFitOf } from './fit.js';
import { checkInstagramMedia } from './media-rules.js';
import { instagramPostKind } from './post-kind.js';
import { checkInstagramSettings } from './settings.js';

/**
 * Checks a post against Instagram's rules (contract 2.4): the media make an image post, a carousel of 2-10 or a
 * Reel within Instagram's media limits, the caption's characters, hashtags and mentions, and the settings. Issue
 * paths are the operation's; media indexes point into the post's own `mediaIds`. The publishing quota is not a
 * refusal here: a post over it waits (publishing holds it with the reason).
 */
export function checkInstagramPost(
  deps: CoreDeps,
  platform: PlatformDoc,
  fields: PostFields,
  loaded: LoadedMedia,
  caller: ProviderCaller,
): Promise<{ issues: IssueDetail[]; settings: Record<string, unknown> }> {
  void [deps, caller];
  requirePostingAccount(platform);
  const settings = (fields.settings ?? {}) as Record<string, unknown>;
  const kind = instagramPostKind(loaded.media);
  const found = [
    ...checkInstagramMedia(loaded.media, instagramFitOf(settings)),
    ...captionIssues(fields.content),
    ...checkInstagramSettings(settings, kind, loaded.media),
  ];
  if (fields.threadReplies.length > 0) {
    found.push({ path: ['threadReplies'], message: 'Instagram has no thread replies; send each post on its own' });
  }
  const issues = [...loaded.issues, ...found.map((issue) => relocated(issue, loaded.indexes))];
  return Promise.resolve({ issues, settings });
}

/** The caption limits: code points, hashtags and @ mentions (every occurrence counts). */
function captionIssues(content: string): IssueDetail[] {
  const issues: IssueDetail[] = [];
  const length = [...content].length;
  if (length > L.captionMaxChars) {
    issues.push({
      path: ['content'],
      message: `content is ${length} characters; an Instagram caption takes at most ${L.captionMaxChars}`,
    });
  }
  const hashtags = hashtagsOf(content).length;
  if (hashtags > L.maxHashtags) {
    issues.push({
      path: ['content'],
      message: `content has ${hashtags} hashtags; Instagram takes at most ${L.maxHashtags}`,
    });
  }
  const mentions = mentionsOf(content).length;
  if (mentions > L.maxMentions) {
    issues.push({
      path: ['content'],
      message: `content has ${mentions} @ mentions; Instagram takes at most ${L.maxMentions}`,
    });
  }
  return issues;
}

/** Media and settings indexes of the loaded media, moved to the post's own `mediaIds` positions. */
function relocated(issue: IssueDetail, indexes: readonly number[]): IssueDetail {
  const [first, second, ...rest] = issue.path;
  if (first === 'mediaIds' && typeof second === 'number') {
    return { ...issue, path: ['mediaIds', indexes[second] ?? second, ...rest] };
  }
  return issue;
}

/** Refuses an account that cannot post through Postdeck at all (409 conflict, with what to do). */
function requirePostingAccount(platform: PlatformDoc): void {
  if (platform.disabled) throw platformDisconnected(platform);
  if (platform.refreshNeeded) throw reconnectNeeded(platform);
  if (platform.capabilities.length === 0) {
    throw new AppError(
      'conflict',
      'This Instagram account did not allow publishing (instagram_business_content_publish) when it was connected. Connect it again on /platforms and allow every permission.',
    );
  }
}
