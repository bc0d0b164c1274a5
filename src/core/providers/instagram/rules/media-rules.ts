import type { IssueDetail } from '../../../errors.js';
import type { AspectFit } from '../../../media/documents.js';
import { fittedSize } from '../../../media/fit-aspect.js';
import { INSTAGRAM_IMAGE_RENDERING } from './image-rendering.js';
import type { PostMedia } from '../../port.js';
import { INSTAGRAM_LIMITS as L } from './limits.js';
import { instagramPostKind } from './post-kind.js';

const MIB = 1024 * 1024;

/**
 * The media of a post against Instagram's rules, each image as it will be sent: rendered by Postdeck (as a
 * JPEG, fitted when `fit` asks) when it is not a JPEG or a fit is asked. Paths index the loaded media
 * (`['mediaIds', j]`).
 */
export function checkInstagramMedia(media: readonly PostMedia[], fit?: AspectFit): IssueDetail[] {
  const kind = instagramPostKind(media);
  if (kind === null) {
    return [
      {
        path: ['mediaIds'],
        message: 'Instagram needs media: 1 image, 2 to 10 images and videos (a carousel), or 1 video (a Reel)',
      },
    ];
  }
  if (kind === 'carousel' && media.length > L.carouselMaxItems) {
    return [
      {
        path: ['mediaIds'],
        message: `an Instagram carousel takes ${L.carouselMinItems} to ${L.carouselMaxItems} items; this post has ${media.length}`,
      },
    ];
  }
  return media.flatMap((item, j) => {
    if (item.mediaType === 'video') return videoIssues(item, j);
    return fit || item.mimeType !== 'image/jpeg' ? renderedImageIssues(item, j, fit) : imageIssues(item, j);
  });
}

/**
 * An image Postdeck renders for Instagram: a JPEG at most 1440 px wide, at the nearest allowed ratio when a fit
 * is asked. Nothing is scaled up, and without a fit the ratio must already be allowed.
 */
function renderedImageIssues(item: PostMedia, j: number, fit: AspectFit | undefined): IssueDetail[] {
  const { width, height } = item;
  if (!width || !height) return [];
  if (!fit) {
    const ratio = width / height;
    if (ratio < L.minAspect || ratio > L.maxAspect) return [aspectIssue(j, width, height, ratio)];
  }
  const sent = fittedSize(width, height, INSTAGRAM_IMAGE_RENDERING.limits, fit ?? { mode: 'crop' });
  if (sent.width < L.imageMinWidth) {
    return [
      {
        path: ['mediaIds', j],
        message: `Instagram takes images at least ${L.imageMinWidth} px wide; this one would be sent ${sent.width} px wide`,
      },
    ];
  }
  return [];
}

function aspectIssue(j: number, width: number, height: number, ratio: number): IssueDetail {
  return {
    path: ['mediaIds', j],
    message:
      `Instagram takes images from 4:5 (0.8) to 1.91:1 in aspect ratio; this one is ${width}x${height} (${ratio.toFixed(3)}). ` +
      'Set settings.fit to {"mode":"pad","background":"blur"} or {"mode":"crop"} to have Postdeck render it to fit.',
  };
}

function imageIssues(item: PostMedia, j: number): IssueDetail[] {
  const at = (message: string): IssueDetail => ({ path: ['mediaIds', j], message });
  const issues: IssueDetail[] = [];
  if (item.size !== null && item.size >= L.imageMaxBytes) {
    issues.push(at(`Instagram takes images under 8 MiB; this one is ${(item.size / MIB).toFixed(1)} MiB`));
  }
  const { width, height } = item;
  if (width && (width < L.imageMinWidth || width > L.imageMaxWidth)) {
    issues.push(at(`Instagram takes images ${L.imageMinWidth} to ${L.imageMaxWidth} px wide; this one is ${width} px`));
  }
  if (width && height) {
    const ratio = width / height;
    if (ratio < L.minAspect || ratio > L.maxAspect) issues.push(aspectIssue(j, width, height, ratio));
  }
  return issues;
}

function videoIssues(item: PostMedia, j: number): IssueDetail[] {
  const at = (message: string): IssueDetail => ({ path: ['mediaIds', j], message });
  if (!L.videoMimeTypes.includes(item.mimeType)) {
    return [at(`Instagram takes MP4 or QuickTime videos only; this video is ${item.mimeType}`)];
  }
  const issues: IssueDetail[] = [];
  if (item.size !== null && item.size > L.videoMaxBytes) {
    issues.push(at(`Instagram takes videos of at most 300 MiB; this one is ${(item.size / MIB).toFixed(0)} MiB`));
  }
  const duration = item.durationSec;
  if (duration && (duration < L.videoMinSec || duration > L.videoMaxSec)) {
    issues.push(at(`Instagram takes videos of ${L.videoMinSec} s to 15 min; this one is ${duration.toFixed(1)} s`));
  }
  if (item.width && item.width > L.videoMaxWidth) {
    issues.push(at(`Instagram takes videos at most ${L.videoMaxWidth} px wide; this one is ${item.width} px`));
  }
  return issues;
}
