import type Router from '@koa/router';
import { authorize, SlidingWindow } from './auth.js';
import { apiError, apiOk, readText } from './envelope.js';
import type { EmulatorOptions } from './options.js';
import type { EmulatorState } from './state.js';
import { VIDEO_FIELDS, videoNow, videoObject } from './videos.js';

/** TikTok's documented most ids per call (contract 8.1). */
const MAX_IDS = 20;

/**
 * `POST /v2/video/query/` (contract 8.1, 8.4): the caller's own public posts among the asked ids, with the asked
 * fields; anything else (another creator's post, an unknown, private or removed one) is left out, not an error.
 */
export function registerVideoQuery(router: Router, state: EmulatorState, options: EmulatorOptions): void {
  const limiter = new SlidingWindow();

  router.post('/v2/video/query/', async (ctx) => {
    const caller = authorize(ctx, state, 'video.list', 'video_query');
    if (!caller || !limiter.admit(ctx, caller.grant, 'video_query', options.rateLimits.videoQuery)) return;
    const fields = (new URLSearchParams(ctx.querystring).get('fields') ?? '').split(',').filter(Boolean);
    const unknown = fields.filter((f) => !VIDEO_FIELDS.has(f));
    if (fields.length === 0 || unknown.length > 0) {
      return apiError(
        ctx,
        400,
        'invalid_params',
        `fields is required and must name Video Object fields: ${unknown.join(',')}`,
      );
    }
    const ids = videoIds(await readText(ctx));
    if (typeof ids === 'string') return apiError(ctx, 400, 'invalid_params', ids);
    const videos = [];
    for (const id of new Set(ids)) {
      const video = videoNow(state, options.statsSeed, id);
      if (!video?.listed || video.publish.openId !== caller.account.openId) continue;
      const all = videoObject(video, caller.account, ctx.origin);
      videos.push(Object.fromEntries(fields.map((f) => [f, all[f]])));
    }
    apiOk(ctx, { videos });
  });
}

/** The body's `filters.video_ids`, or the message of the 400 it deserves. */
function videoIds(text: string): string[] | string {
  let body: unknown;
  try {
    body = JSON.parse(text || 'null');
  } catch {
    return 'The request body must be JSON.';
  }
  const ids = (body as { filters?: { video_ids?: unknown } } | null)?.filters?.video_ids;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && id !== '')) {
    return 'filters.video_ids must be a non-empty list of video id strings.';
  }
  if (ids.length > MAX_IDS) return `filters.video_ids may hold at most ${MAX_IDS} ids.`;
  return ids as string[];
}
