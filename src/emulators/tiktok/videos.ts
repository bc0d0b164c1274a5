import { ageMinutes, COUNT_NAMES, countsAt, type VideoCounts } from './growth.js';
import type { Publish } from './publish-model.js';
import type { Account, EmulatorState, VideoChanges } from './state.js';

/** The Video Object fields of contract 8.1, the only ones `fields` may name. */
export const VIDEO_FIELDS = new Set([
  'id',
  'create_time',
  'cover_image_url',
  'share_url',
  'video_description',
  'duration',
  'height',
  'width',
  'title',
  'embed_html',
  'embed_link',
  'like_count',
  'comment_count',
  'share_count',
  'view_count',
]);

const NO_CHANGES: VideoChanges = { pinned: {}, privacyLevel: null, removed: false };

/** One published post as the emulator knows it now: where it came from, who sees it, its age and counts. */
export interface VideoNow {
  postId: string;
  publish: Publish;
  /** Who can see it now: the control API's change, else what it was published with. */
  privacyLevel: string | null;
  removed: boolean;
  /** True when video/query returns it: public and not removed (contract 8.1). */
  listed: boolean;
  ageMinutes: number;
  counts: VideoCounts;
  pinned: VideoChanges['pinned'];
}

/** Post `postId` now, or undefined when no completed publish produced it. */
export function videoNow(state: EmulatorState, seed: string, postId: string): VideoNow | undefined {
  const publish = state.publishOfPost(postId);
  if (!publish) return undefined;
  const changes = state.videoChanges.get(postId) ?? NO_CHANGES;
  const age = ageMinutes(publish.settledAt ?? publish.createdAt, state.postNow());
  const curve = countsAt(seed, postId, age);
  const counts = { ...curve };
  for (const name of COUNT_NAMES) counts[name] = changes.pinned[name] ?? curve[name];
  const privacyLevel = changes.privacyLevel ?? publish.effectivePrivacyLevel;
  return {
    postId,
    publish,
    privacyLevel,
    removed: changes.removed,
    listed: privacyLevel === 'PUBLIC_TO_EVERYONE' && !changes.removed,
    ageMinutes: age,
    counts,
    pinned: changes.pinned,
  };
}

type Obj = Record<string, unknown>;

/** The full Video Object of a post (contract 8.1); `origin` is the emulator's own host, where its post pages are. */
export function videoObject(video: VideoNow, account: Account, origin: string): Record<string, unknown> {
  const p = video.publish;
  const request = (p.request ?? {}) as Obj;
  const info = (request.post_info ?? {}) as Obj;
  const source = (request.source_info ?? {}) as Obj;
  const title = typeof info.title === 'string' ? info.title : '';
  const description = typeof info.description === 'string' ? info.description : '';
  const shareUrl = `${origin}/@${encodeURIComponent(account.username)}/${p.kind}/${video.postId}`;
  const media = p.media[0];
  const photos = Array.isArray(source.photo_images) ? (source.photo_images as unknown[]) : [];
  const coverIndex = typeof source.photo_cover_index === 'number' ? source.photo_cover_index : 0;
  const cover = p.kind === 'photo' ? photos[coverIndex] : undefined;
  return {
    id: video.postId,
    create_time: Math.floor((p.settledAt ?? p.createdAt) / 1000),
    cover_image_url: typeof cover === 'string' ? cover : `${shareUrl}#cover`,
    share_url: shareUrl,
    video_description: (p.kind === 'photo' ? description || title : title).slice(0, 150),
    duration: p.kind === 'photo' ? 0 : Math.round(media?.durationSec ?? 0),
    height: media?.height ?? 0,
    width: media?.width ?? 0,
    title: title.slice(0, 150),
    embed_html: `<blockquote class="tiktok-embed" cite="${shareUrl}" data-video-id="${video.postId}"></blockquote>`,
    embed_link: shareUrl,
    like_count: video.counts.likeCount,
    comment_count: video.counts.commentCount,
    share_count: video.counts.shareCount,
    view_count: video.counts.viewCount,
  };
}
