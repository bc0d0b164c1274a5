import type Router from '@koa/router';
import { z } from 'zod';
import { statusOf } from './container-status.js';
import { parseBody, problem } from './control.js';
import type { InstagramEmulatorOptions } from './options.js';
import type { FetchedMedia, InstagramState, Media } from './state.js';

const InsightsSchema = z.object({
  values: z.record(z.string(), z.number().int().min(0)).default({}),
  unavailable: z.enum(['not_enough_viewers', 'empty']).nullable().optional(),
});

/** What the control API tells of fetched bytes: their size and, for images, width and height read from the JPEG. */
function describe(fetched: FetchedMedia | null): Record<string, unknown> | null {
  if (!fetched) return null;
  const { kind, bytes, width, height } = fetched;
  return fetched.kind === 'video'
    ? { kind, bytes, width, height, durationSec: fetched.durationSec }
    : { kind, bytes, width, height };
}

function view(state: InstagramState, media: Media): Record<string, unknown> {
  const children = media.children.map((id) => state.media.get(id)).filter((m): m is Media => m !== undefined);
  return {
    id: media.id,
    accountId: media.accountId,
    containerId: media.containerId,
    mediaType: media.mediaType,
    productType: media.productType,
    caption: media.caption,
    shortcode: media.shortcode,
    publishedAt: new Date(media.publishedAt).toISOString(),
    item: describe(media.fetched),
    children: children.map((c) => ({ id: c.id, mediaType: c.mediaType, item: describe(c.fetched) })),
    insights: media.insights,
    insightsUnavailable: media.insightsUnavailable,
  };
}

/**
 * The control API over content (`/__control/media`, `/__control/containers`): published media with the
 * stored bytes' sizes, their insight numbers, the containers with their status, and forced expiry.
 */
export function registerControlMedia(router: Router, state: InstagramState, options: InstagramEmulatorOptions): void {
  router.get('/__control/media', (ctx) => {
    const accountId = ctx.query.accountId;
    const account = typeof accountId === 'string' ? state.accountById(accountId) : undefined;
    const media = [...state.media.values()].filter(
      (m) => m.parentId === null && (!account || m.accountId === account.id),
    );
    ctx.body = { media: media.map((m) => view(state, m)) };
  });

  router.get('/__control/media/:id/bytes', (ctx) => {
    const media = state.media.get(ctx.params.id ?? '');
    if (media?.fetched?.kind !== 'image') return problem(ctx, 404, 'no stored image for this media');
    ctx.type = 'image/jpeg';
    ctx.body = media.fetched.data;
  });

  router.put('/__control/media/:id/insights', async (ctx) => {
    const media = state.media.get(ctx.params.id ?? '');
    if (!media) return problem(ctx, 404, 'no such media');
    const input = await parseBody(ctx, InsightsSchema);
    if (!input) return;
    Object.assign(media.insights, input.values);
    if (input.unavailable !== undefined) media.insightsUnavailable = input.unavailable;
    ctx.body = view(state, media);
  });

  router.get('/__control/containers', (ctx) => {
    ctx.body = {
      containers: [...state.containers.values()].map((c) => ({
        id: c.id,
        accountId: c.accountId,
        mediaType: c.mediaType,
        isCarouselItem: c.isCarouselItem,
        children: c.children,
        statusCode: statusOf(state, options, c).code,
        publishedMediaId: c.publishedMediaId,
        item: describe(c.fetched),
      })),
    };
  });

  router.post('/__control/containers/:id/expire', (ctx) => {
    const container = state.containers.get(ctx.params.id ?? '');
    if (!container) return problem(ctx, 404, 'no such container');
    container.expired = true;
    ctx.body = { id: container.id, statusCode: statusOf(state, options, container).code };
  });
}
