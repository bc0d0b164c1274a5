import type { IssueDetail } from '../../../errors.js';
import type { PostMedia } from '../../port.js';
import { TIKTOK_LIMITS as L, type TikTokPostingRules } from './post-limits.js';

/** A media object as the validator needs it (the port's; the video facts come from `thumbnailMetadata`). */
export type TikTokPostMedia = PostMedia;

const MB = 1024 * 1024;

/**
 * TikTok's media rules (contract 4.4, 4.8) over the post's media in `mediaIds` order: exactly one
 * video or 1 to 35 images, never mixed, each READY and of a type, size and shape TikTok takes.
 * Video facts that could not be read (null) are not held against the file; TikTok checks again.
 */
export function checkTikTokMedia(rules: TikTokPostingRules, media: readonly TikTokPostMedia[]): IssueDetail[] {
  const issues: IssueDetail[] = [];
  if (media.length === 0) {
    return [{ path: ['mediaIds'], message: 'TikTok posts need media: exactly one video, or 1 to 35 images' }];
  }
  const videos = media.filter((m) => m.mediaType === 'video').length;
  const images = media.filter((m) => m.mediaType === 'image').length;
  if (videos > 0 && images > 0) {
    issues.push({ path: ['mediaIds'], message: 'a TikTok post is one video or 1 to 35 images, never both' });
  } else if (videos > 1) {
    issues.push({ path: ['mediaIds'], message: `a TikTok video post takes exactly one video, not ${videos}` });
  } else if (images > L.imageMaxCount) {
    issues.push({
      path: ['mediaIds'],
      message: `a TikTok photo post takes 1 to ${L.imageMaxCount} images, not ${images}`,
    });
  }
  media.forEach((item, index) => {
    for (const message of itemProblems(rules, item)) issues.push({ path: ['mediaIds', index], message });
  });
  return issues;
}

function itemProblems(rules: TikTokPostingRules, m: TikTokPostMedia): string[] {
  const problems: string[] = [];
  if (m.status !== 'READY') problems.push(`media ${m.id} is ${m.status}; only READY media can be posted`);
  if (m.mediaType === 'image') {
    if (!L.imageMimeTypes.includes(m.mimeType)) {
      problems.push(`TikTok takes JPEG or WebP images; media ${m.id} is ${m.mimeType}`);
    }
    if (m.size !== null && m.size > L.imageMaxBytes) {
      problems.push(`media ${m.id} is ${m.size} bytes; TikTok takes images up to ${L.imageMaxBytes / MB} MB`);
    }
  } else if (m.mediaType === 'video') {
    problems.push(...videoProblems(rules, m));
  } else {
    problems.push(`media ${m.id} is ${m.mediaType}; TikTok takes images or one video`);
  }
  return problems;
}

function videoProblems(rules: TikTokPostingRules, m: TikTokPostMedia): string[] {
  const problems: string[] = [];
  if (!L.videoMimeTypes.includes(m.mimeType)) {
    problems.push(`TikTok takes MP4, WebM or QuickTime videos; media ${m.id} is ${m.mimeType}`);
  }
  if (m.size !== null && m.size > L.videoMaxBytes) {
    problems.push(`media ${m.id} is ${m.size} bytes; TikTok takes videos up to 4 GB`);
  }
  for (const [side, value] of [
    ['width', m.width],
    ['height', m.height],
  ] as const) {
    if (value != null && (value < L.videoMinSide || value > L.videoMaxSide)) {
      problems.push(`video ${side} is ${value} px; TikTok takes ${L.videoMinSide} to ${L.videoMaxSide} px`);
    }
  }
  if (m.fps != null && (m.fps < L.videoMinFps || m.fps > L.videoMaxFps)) {
    problems.push(`video frame rate is ${m.fps} fps; TikTok takes ${L.videoMinFps} to ${L.videoMaxFps} fps`);
  }
  const max = rules.maxVideoDurationSec;
  if (m.durationSec != null && max !== null && m.durationSec > max) {
    problems.push(`the video is ${m.durationSec} s long; this creator can post videos up to ${max} s`);
  }
  return problems;
}
