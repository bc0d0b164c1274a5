import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import { statusOf } from './container-status.js';
import { isOwnUser } from './containers.js';
import { answerFault, graphCall, requireScope } from './graph-auth.js';
import { graphError } from './graph-error.js';
import type { InstagramEmulatorOptions } from './options.js';
import { numericId, type Container, type InstagramState, type Media } from './state.js';

const PUBLISH_SCOPE = 'instagram_business_content_publish';

/**
 * `POST /{ig-user-id}/media_publish` (contract 2.1, 2.3 and 2.4) and `GET /{ig-user-id}/content_publishing_limit`.
 * Publishing counts against the rolling 24 h quota (a carousel is one); a container already PUBLISHED answers
 * its media id again and never makes a second post.
 */
export function registerPublish(router: Router, state: InstagramState, options: InstagramEmulatorOptions): void {
  router.post('/:userId/media_publish', async (ctx) => {
    const call = await graphCall(ctx, state, 'media_publish');
    if (!call || !isOwnUser(ctx, call, ctx.params.userId ?? '', 'post')) return;
    if (!requireScope(ctx, call, PUBLISH_SCOPE)) return;
    const creationId = call.params.get('creation_id') ?? '';
    const container = state.containers.get(creationId);
    if (!creationId) return graphError(ctx, { code: 100, message: '(#100) The parameter creation_id is required' });
    if (!container || container.accountId !== call.account.id) {
      return graphError(ctx, {
        code: 24,
        subcode: 2207008,
        message: `The media builder with creation id = ${creationId} does not exist or has been expired.`,
      });
    }
    if (container.isCarouselItem) {
      return graphError(ctx, { code: 100, message: '(#100) A carousel item cannot be published on its own.' });
    }
    const status = statusOf(state, options, container);
    if (status.code === 'PUBLISHED') {
      state.republishAttempts += 1;
      ctx.body = { id: container.publishedMediaId };
      return;
    }
    if (status.code === 'EXPIRED') {
      return graphError(ctx, {
        code: 24,
        subcode: 2207008,
        message: `The media builder with creation id = ${creationId} does not exist or has been expired.`,
      });
    }
    if (status.code === 'ERROR') return graphError(ctx, { code: -1, subcode: 2207032 });
    if (status.code === 'IN_PROGRESS') return graphError(ctx, { code: 9007, subcode: 2207027 });
    if (state.publishesInDay(call.account.id) >= options.quotaTotal) {
      return graphError(ctx, { code: 9, subcode: 2207042 });
    }
    const media = publish(state, container);
    if (call.lateFault) return answerFault(ctx, call.lateFault);
    ctx.body = { id: media.id };
  });

  router.get('/:userId/content_publishing_limit', async (ctx) => {
    const call = await graphCall(ctx, state, 'content_publishing_limit');
    if (!call || !isOwnUser(ctx, call, ctx.params.userId ?? '', 'get')) return;
    const sinceParam = call.params.get('since');
    const dayAgo = state.now() - 86_400_000;
    let since = dayAgo;
    if (sinceParam !== undefined) {
      const seconds = Number(sinceParam);
      if (!Number.isInteger(seconds) || seconds * 1000 < dayAgo - 1000) {
        return graphError(ctx, {
          code: 100,
          message: '(#100) since must be a unix timestamp within the last 24 hours.',
        });
      }
      since = seconds * 1000;
    }
    const fields = (call.params.get('fields') ?? 'quota_usage').split(',').map((f) => f.trim());
    const unknown = fields.find((f) => f !== 'quota_usage' && f !== 'config');
    if (unknown) {
      return graphError(ctx, { code: 100, message: `(#100) Tried accessing nonexisting field (${unknown})` });
    }
    const row: Record<string, unknown> = {};
    if (fields.includes('quota_usage')) row.quota_usage = state.publishesInDay(call.account.id, since);
    if (fields.includes('config')) row.config = { quota_total: options.quotaTotal, quota_duration: 86_400 };
    ctx.body = { data: [row] };
  });
}

/** Makes the media object of a FINISHED container (and one per carousel child) and marks them PUBLISHED. */
function publish(state: InstagramState, container: Container): Media {
  const now = state.now();
  const make = (from: Container, parentId: string | null): Media => {
    const media: Media = {
      id: numericId('1801'),
      accountId: from.accountId,
      containerId: from.id,
      mediaType: from.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : from.mediaType === 'IMAGE' ? 'IMAGE' : 'VIDEO',
      productType:
        from.mediaType === 'REELS' || (from.mediaType === 'VIDEO' && !from.isCarouselItem) ? 'REELS' : 'FEED',
      caption: from.caption,
      shortcode: randomBytes(8).toString('base64url').slice(0, 11),
      publishedAt: now,
      children: [],
      parentId,
      fetched: from.fetched,
      insights: {},
      insightsUnavailable: null,
    };
    from.publishedMediaId = media.id;
    state.media.set(media.id, media);
    return media;
  };
  const media = make(container, null);
  for (const childId of container.children) {
    const child = state.containers.get(childId);
    if (child) media.children.push(make(child, media.id).id);
  }
  return media;
}
