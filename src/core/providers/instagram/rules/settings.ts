import type { IssueDetail } from '../../../errors.js';
import type { PostMedia } from '../../port.js';
import { fitIssues } from './fit.js';
import { INSTAGRAM_LIMITS as L } from './limits.js';
import { INSTAGRAM_SETTING_KEYS } from './settings-schema.js';
import type { InstagramPostKind } from './post-kind.js';

/** Checks `settings` for a post of `kind` with `media`; paths are `['settings', key, ...]`, media indexes loaded. */
export function checkInstagramSettings(
  settings: Record<string, unknown>,
  kind: InstagramPostKind | null,
  media: readonly PostMedia[],
): IssueDetail[] {
  const issues: IssueDetail[] = [];
  const at = (path: (string | number)[], message: string) => issues.push({ path: ['settings', ...path], message });
  for (const key of Object.keys(settings)) {
    if (!INSTAGRAM_SETTING_KEYS.includes(key)) {
      at([key], `${key} is not an Instagram setting; Instagram takes ${INSTAGRAM_SETTING_KEYS.join(', ')}`);
    }
  }
  const { alt_text: altText, collaborators, share_to_feed: shareToFeed, thumb_offset: thumbOffset } = settings;
  if (altText !== undefined) {
    if (!Array.isArray(altText) || altText.some((t) => t !== null && typeof t !== 'string')) {
      at(['alt_text'], 'alt_text is an array of strings (or null), one per item in mediaIds order');
    } else if (altText.length > media.length) {
      at(['alt_text'], `alt_text has ${altText.length} entries for ${media.length} media`);
    } else {
      altText.forEach((text, i) => {
        if (text && media[i]?.mediaType === 'video') at(['alt_text', i], 'Instagram takes alt text for images only');
      });
    }
  }
  if (collaborators !== undefined) {
    const names = Array.isArray(collaborators) ? collaborators : null;
    if (!names || names.length === 0 || names.some((n) => typeof n !== 'string' || n === '')) {
      at(['collaborators'], 'collaborators is a list of Instagram usernames');
    } else if (names.length > L.maxCollaborators) {
      at(
        ['collaborators'],
        `Instagram takes at most ${L.maxCollaborators} collaborators; this post names ${names.length}`,
      );
    } else {
      names.forEach((name, i) => {
        if ((name as string).startsWith('@')) at(['collaborators', i], 'write the username without @');
      });
    }
  }
  if (shareToFeed !== undefined) {
    if (typeof shareToFeed !== 'boolean') at(['share_to_feed'], 'share_to_feed is true or false');
    else if (kind !== 'reel') at(['share_to_feed'], 'share_to_feed applies to Reels (one video) only');
  }
  if (thumbOffset !== undefined) {
    if (typeof thumbOffset !== 'number' || !Number.isInteger(thumbOffset) || thumbOffset < 0) {
      at(['thumb_offset'], 'thumb_offset is a whole number of milliseconds, 0 or more');
    } else if (kind !== 'reel') {
      at(['thumb_offset'], 'thumb_offset applies to Reels (one video) only');
    } else {
      const duration = media[0]?.durationSec;
      if (duration && thumbOffset >= duration * 1000) {
        at(['thumb_offset'], `thumb_offset must be below the video's length (${Math.round(duration * 1000)} ms)`);
      }
    }
  }
  issues.push(...fitIssues(settings.fit));
  return issues;
}
