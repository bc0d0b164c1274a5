import type Router from '@koa/router';
import { z } from 'zod';
import { parseBody, problem } from './control.js';
import { countsAt, COUNT_NAMES } from './growth.js';
import type { EmulatorOptions } from './options.js';
import { VideoChangesSchema, type EmulatorState } from './state.js';
import { videoNow, type VideoNow } from './videos.js';

const count = z.number().int().min(0).nullable().optional();
const VideoPatchSchema = z.strictObject({
  viewCount: count,
  likeCount: count,
  commentCount: count,
  shareCount: count,
  privacyLevel: z.enum(['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY']).optional(),
  removed: z.boolean().optional(),
});
const ClockSchema = z.strictObject({ advanceMs: z.number().int().min(0) });

/** How the control API shows a published post's numbers. */
function videoView(video: VideoNow): Record<string, unknown> {
  return {
    postId: video.postId,
    openId: video.publish.openId,
    publishId: video.publish.publishId,
    kind: video.publish.kind,
    privacyLevel: video.privacyLevel,
    removed: video.removed,
    listed: video.listed,
    ageMinutes: video.ageMinutes,
    counts: video.counts,
    pinned: video.pinned,
  };
}

/**
 * The control API of post numbers (contract 8.4): a post's counts now, pinning counts, changing who can see a post
 * or removing it, the curve at any age, and the post clock that ages every post at once.
 */
export function registerControlVideos(router: Router, state: EmulatorState, options: EmulatorOptions): void {
  router.get('/__control/videos/:postId', (ctx) => {
    const video = videoNow(state, options.statsSeed, ctx.params.postId ?? '');
    if (!video) return problem(ctx, 404, 'no completed post has this id');
    ctx.body = videoView(video);
  });

  router.patch('/__control/videos/:postId', async (ctx) => {
    const postId = ctx.params.postId ?? '';
    if (!videoNow(state, options.statsSeed, postId)) return problem(ctx, 404, 'no completed post has this id');
    const patch = await parseBody(ctx, VideoPatchSchema);
    if (!patch) return;
    const changes = VideoChangesSchema.parse(state.videoChanges.get(postId) ?? {});
    for (const name of COUNT_NAMES) {
      const value = patch[name];
      if (value === null) delete changes.pinned[name];
      else if (value !== undefined) changes.pinned[name] = value;
    }
    if (patch.privacyLevel !== undefined) changes.privacyLevel = patch.privacyLevel;
    if (patch.removed !== undefined) changes.removed = patch.removed;
    state.videoChanges.set(postId, changes);
    state.save();
    ctx.body = videoView(videoNow(state, options.statsSeed, postId)!);
  });

  router.get('/__control/videos/:postId/curve', (ctx) => {
    const age = Number(new URLSearchParams(ctx.querystring).get('ageMinutes'));
    if (!Number.isInteger(age) || age < 0) return problem(ctx, 400, 'ageMinutes must be a whole number ≥ 0');
    ctx.body = { ageMinutes: age, counts: countsAt(options.statsSeed, ctx.params.postId ?? '', age) };
  });

  router.get('/__control/clock', (ctx) => {
    ctx.body = clockView(state);
  });

  router.post('/__control/clock', async (ctx) => {
    const input = await parseBody(ctx, ClockSchema);
    if (!input) return;
    // Forward only: posts only age, so their counts never decrease.
    state.postClockOffsetMs += input.advanceMs;
    state.save();
    ctx.body = clockView(state);
  });
}

function clockView(state: EmulatorState): Record<string, unknown> {
  return { offsetMs: state.postClockOffsetMs, postNow: new Date(state.postNow()).toISOString() };
}
