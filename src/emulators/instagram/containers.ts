import type Router from '@koa/router';
import type { Context } from 'koa';
import { captionRefusal, collaboratorsRefusal } from './caption-rules.js';
import { statusOf } from './container-status.js';
import { answerFault, graphCall, requireScope, type GraphCall } from './graph-auth.js';
import { graphError, type GraphErrorSpec } from './graph-error.js';
import { fetchImage, fetchVideo } from './media-fetch.js';
import { settleVideo } from './video-check.js';
import type { InstagramEmulatorOptions } from './options.js';
import { flag } from './params.js';
import { numericId, type Container, type InstagramState } from './state.js';

const MEDIA_TYPES = ['IMAGE', 'VIDEO', 'REELS', 'CAROUSEL'] as const;
type MediaType = (typeof MEDIA_TYPES)[number];
const PUBLISH_SCOPE = 'instagram_business_content_publish';

/** Whether a path's user id names the caller (either of its ids, or `me`); else Meta's 100 / 33. */
export function isOwnUser(ctx: Context, call: GraphCall, id: string, verb: 'get' | 'post'): boolean {
  if (id === 'me' || id === call.account.id || id === call.account.userId) return true;
  graphError(ctx, {
    code: 100,
    subcode: 33,
    message: `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  });
  return false;
}

/** `POST /{ig-user-id}/media` (contract 2.1 and 2.2): creates an image, video, Reels or carousel container. */
export function registerContainers(router: Router, state: InstagramState, options: InstagramEmulatorOptions): void {
  router.post('/:userId/media', async (ctx) => {
    const call = await graphCall(ctx, state, 'create_container');
    if (!call || !isOwnUser(ctx, call, ctx.params.userId ?? '', 'post')) return;
    if (!requireScope(ctx, call, PUBLISH_SCOPE)) return;
    if (call.account.accountType === 'PERSONAL') {
      return graphError(ctx, {
        code: 10,
        message: '(#10) The user is not an Instagram Business or Creator account: content publishing is not available.',
      });
    }
    if (state.containersInDay(call.account.id) >= options.containerCap) {
      return graphError(ctx, {
        code: 9,
        message: `You reached the maximum number of containers (${options.containerCap}) an account can create in 24 hours.`,
      });
    }
    const refusal = shapeRefusal(call.params, options);
    if (refusal) return graphError(ctx, refusal);
    const mediaType = (call.params.get('media_type') ?? 'IMAGE') as MediaType;
    const container: Container = {
      id: numericId('1789'),
      accountId: call.account.id,
      mediaType,
      isCarouselItem: flag(call.params.get('is_carousel_item')),
      children: [],
      caption: call.params.get('caption') ?? null,
      params: Object.fromEntries(call.params),
      createdAt: state.now(),
      readyAt: null,
      errorSubcode: null,
      fetched: null,
      expired: false,
      publishedMediaId: null,
    };
    delete container.params.access_token;
    if (mediaType === 'CAROUSEL') {
      const children = childrenOf(call.params.get('children') ?? '');
      const childRefusal = carouselRefusal(state, options, call, children);
      if (childRefusal) return graphError(ctx, childRefusal);
      container.children = children;
      container.readyAt = state.now() + options.imageProcessingMs;
    } else if (mediaType === 'IMAGE') {
      const fetched = await fetchImage(call.params.get('image_url') ?? '', options);
      if (!('kind' in fetched)) return graphError(ctx, { ...fetched, userMessage: fetched.message });
      container.fetched = fetched;
      container.readyAt = state.now() + options.imageProcessingMs;
    } else {
      const videoUrl = call.params.get('video_url');
      // Meta fetches a video after answering; what it finds shows in the status. A resumable one waits for rupload.
      if (videoUrl) void fetchVideo(videoUrl, options).then((got) => settleVideo(container, got, state.now(), options));
    }
    state.containers.set(container.id, container);
    if (call.lateFault) return answerFault(ctx, call.lateFault);
    // A resumable container names the rupload address its video goes to (contract 2.6).
    const version = (ctx.state as { version?: string }).version ?? 'v25.0';
    const uri = `${ctx.protocol}://${ctx.host}/ig-api-upload/${version}/${container.id}`;
    ctx.body = call.params.get('upload_type') === 'resumable' ? { id: container.id, uri } : { id: container.id };
  });
}

/** `children` as Meta takes it: a comma-separated string (a JSON array is tolerated, as a JSON body sends one). */
function childrenOf(raw: string): string[] {
  const text = raw.trim().startsWith('[') ? raw.replace(/[[\]"\s]/g, '') : raw;
  return text
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
}

/** Which parameters a kind of container takes, and the limits on them (contract 2.2 and 2.4). */
function shapeRefusal(params: Map<string, string>, options: InstagramEmulatorOptions): GraphErrorSpec | undefined {
  const mediaType = params.get('media_type') ?? 'IMAGE';
  if (!(MEDIA_TYPES as readonly string[]).includes(mediaType)) {
    return { code: 100, subcode: 2207023, message: `The media type ${mediaType} is unknown.` };
  }
  const isItem = flag(params.get('is_carousel_item'));
  const notAllowed = (name: string): GraphErrorSpec => ({ code: 100, message: `(#100) param ${name} is not allowed` });
  const required = (name: string): GraphErrorSpec => ({
    code: 100,
    message: `(#100) The parameter ${name} is required`,
  });
  if (isItem && (mediaType === 'CAROUSEL' || mediaType === 'REELS')) return notAllowed('is_carousel_item');
  if (isItem) {
    for (const name of ['caption', 'collaborators', 'share_to_feed', 'cover_url']) {
      if (params.has(name)) return notAllowed(name);
    }
  }
  const isImage = mediaType === 'IMAGE';
  if (isImage && !params.get('image_url')) return required('image_url');
  const isVideo = mediaType === 'VIDEO' || mediaType === 'REELS';
  const resumable = params.get('upload_type') === 'resumable';
  if (params.has('upload_type') && (!isVideo || !resumable)) return notAllowed('upload_type');
  if (isVideo && !resumable && !params.get('video_url')) return required('video_url');
  if (resumable && params.has('video_url')) return notAllowed('video_url');
  if (mediaType === 'CAROUSEL' && !params.get('children')) return required('children');
  if (!isImage && params.has('image_url')) return notAllowed('image_url');
  if ((isImage || mediaType === 'CAROUSEL') && params.has('video_url')) return notAllowed('video_url');
  if (!isImage && params.has('alt_text')) return notAllowed('alt_text');
  if (mediaType !== 'REELS') {
    for (const name of ['share_to_feed', 'cover_url', 'audio_name', 'trial_params']) {
      if (params.has(name)) return notAllowed(name);
    }
  }
  const offset = params.get('thumb_offset');
  if (offset !== undefined && (isImage || mediaType === 'CAROUSEL')) return notAllowed('thumb_offset');
  if (offset !== undefined && !/^\d+$/.test(offset)) {
    return {
      code: 1,
      subcode: 2207057,
      message: 'Thumbnail offset must be greater than or equal to 0 and less than video duration.',
    };
  }
  const caption = params.get('caption');
  const captionProblem = caption === undefined ? undefined : captionRefusal(caption, options);
  if (captionProblem) return captionProblem;
  const collaborators = params.get('collaborators');
  return collaborators === undefined ? undefined : collaboratorsRefusal(collaborators, options);
}

/**
 * A carousel's children (contract 2.4): 2 to 10 (100 / 2207028), each an unpublished carousel item of this
 * account that reached FINISHED. Meta does not say whether children must be FINISHED first; the emulator
 * requires it (9007 / 2207027), the stricter reading.
 */
function carouselRefusal(
  state: InstagramState,
  options: InstagramEmulatorOptions,
  call: GraphCall,
  children: string[],
): GraphErrorSpec | undefined {
  if (children.length < 2 || children.length > 10 || new Set(children).size !== children.length) {
    return { code: 100, subcode: 2207028 };
  }
  for (const id of children) {
    const child = state.containers.get(id);
    if (!child || child.accountId !== call.account.id) {
      return { code: 24, subcode: 2207006, message: `The media with ${id} cannot be found` };
    }
    if (!child.isCarouselItem) return { code: 100, message: `(#100) The media ${id} is not a carousel item.` };
    const status = statusOf(state, options, child).code;
    if (status === 'EXPIRED') return { code: 24, subcode: 2207008 };
    if (status === 'ERROR') return { code: -1, subcode: 2207032 };
    if (status === 'PUBLISHED') return { code: 100, message: `(#100) The media ${id} was already used.` };
    if (status === 'IN_PROGRESS') return { code: 9007, subcode: 2207027 };
  }
  return undefined;
}
