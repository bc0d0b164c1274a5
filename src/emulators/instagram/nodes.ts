import type Router from '@koa/router';
import type { Context } from 'koa';
import { statusOf } from './container-status.js';
import { graphCall, type GraphCall } from './graph-auth.js';
import { graphError } from './graph-error.js';
import type { InstagramEmulatorOptions } from './options.js';
import { fieldsOf } from './params.js';
import type { Account, Container, InstagramState, Media } from './state.js';

/** Fields of each node type the emulator answers; any other named in `fields` fails the call (contract 1.5). */
const USER_FIELDS = [
  'id',
  'user_id',
  'username',
  'name',
  'account_type',
  'profile_picture_url',
  'followers_count',
  'follows_count',
  'media_count',
];
const CONTAINER_FIELDS = ['id', 'status_code', 'status'];
const MEDIA_FIELDS = [
  'id',
  'media_type',
  'media_product_type',
  'permalink',
  'caption',
  'timestamp',
  'children',
  'media_url',
  'username',
  'shortcode',
  'like_count',
  'comments_count',
];

/** Meta's answer to an id the caller cannot read (also the spurious read error of Postiz #1562). */
export function unsupportedGet(ctx: Context, id: string): void {
  graphError(ctx, {
    code: 100,
    subcode: 33,
    message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  });
}

/** `GET /me` and `GET /{id}` for a user, a container (status) or a published media (contract 1.5, 2.3, 2.1 step 5). */
export function registerNodes(router: Router, state: InstagramState, options: InstagramEmulatorOptions): void {
  router.get('/me', async (ctx) => {
    const call = await graphCall(ctx, state, 'me');
    if (call) answerFields(ctx, 'IGUser', USER_FIELDS, call, userFields(state, call.account));
  });

  router.get('/:id', async (ctx) => {
    const id = ctx.params.id ?? '';
    const container = state.containers.get(id);
    const media = state.media.get(id);
    const endpoint = container ? 'container_status' : media ? 'media_read' : 'me';
    const call = await graphCall(ctx, state, endpoint);
    if (!call) return;
    if (id === call.account.id || id === call.account.userId) {
      return answerFields(ctx, 'IGUser', USER_FIELDS, call, userFields(state, call.account));
    }
    if (container && container.accountId === call.account.id) {
      return answerFields(ctx, 'IGContainer', CONTAINER_FIELDS, call, containerFields(state, options, container));
    }
    if (media && media.accountId === call.account.id) {
      return answerFields(ctx, 'IGMedia', MEDIA_FIELDS, call, mediaFields(ctx, state, call.account, media));
    }
    unsupportedGet(ctx, id);
  });
}

function answerFields(
  ctx: Context,
  nodeType: string,
  known: string[],
  call: GraphCall,
  values: Record<string, unknown>,
): void {
  const fields = fieldsOf(call.params);
  const unknown = fields.find((f) => !known.includes(f));
  if (unknown) {
    return graphError(ctx, {
      code: 100,
      message: `(#100) Tried accessing nonexisting field (${unknown}) on node type (${nodeType})`,
    });
  }
  const chosen = fields.length > 0 ? fields : ['id'];
  // Meta answers `id` whether or not it was asked for.
  ctx.body = Object.fromEntries(['id', ...chosen.filter((f) => f !== 'id')].map((f) => [f, values[f]]));
}

function userFields(state: InstagramState, account: Account): Record<string, unknown> {
  return {
    id: account.id,
    user_id: account.userId,
    username: account.username,
    name: account.name,
    account_type: account.accountType,
    profile_picture_url: account.profilePictureUrl,
    followers_count: account.followersCount,
    follows_count: account.followsCount,
    media_count: [...state.media.values()].filter((m) => m.accountId === account.id && m.parentId === null).length,
  };
}

function containerFields(
  state: InstagramState,
  options: InstagramEmulatorOptions,
  container: Container,
): Record<string, unknown> {
  const status = statusOf(state, options, container);
  return { id: container.id, status_code: status.code, status: status.status };
}

function mediaFields(ctx: Context, state: InstagramState, account: Account, media: Media): Record<string, unknown> {
  return {
    id: media.id,
    media_type: media.mediaType,
    media_product_type: media.productType,
    permalink: `${ctx.protocol}://${ctx.host}/p/${media.shortcode}/`,
    caption: media.caption ?? undefined,
    timestamp: new Date(media.publishedAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
    children: media.mediaType === 'CAROUSEL_ALBUM' ? { data: media.children.map((id) => ({ id })) } : undefined,
    media_url: media.fetched ? `${ctx.protocol}://${ctx.host}/__control/media/${media.id}/bytes` : undefined,
    username: account.username,
    shortcode: media.shortcode,
    like_count: media.insights.likes ?? 0,
    comments_count: media.insights.comments ?? 0,
  };
}
