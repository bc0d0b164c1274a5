import type { CoreDeps } from '../../../core/context.js';
import { createPosts } from '../../../core/posts/create-posts.js';
import { deletePostGroup } from '../../../core/posts/delete-post.js';
import { getPostGroup } from '../../../core/posts/get-post.js';
import { listPosts } from '../../../core/posts/list-posts.js';
import { publishDraft } from '../../../core/posts/publish-draft.js';
import { reschedulePost } from '../../../core/posts/reschedule-post.js';
import {
  CreatePostsBodySchema,
  CreatePostsResultSchema,
  ListPostsQuerySchema,
  PostGroupSchema,
  PostListSchema,
  PublishPostBodySchema,
  ReschedulePostBodySchema,
} from '../../../core/posts/schema.js';
import { IdParamsSchema } from '../params.js';
import { defineRoute, type AnyRoute } from '../../route.js';

/** The post routes: create, list, get, delete, reschedule, publish a draft. */
export function postRoutes(deps: CoreDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/posts',
      operationId: 'listPosts',
      summary: 'List root posts by their time (scheduledFor, else createdAt) in [startDate, endDate), at most 93 days',
      tag: 'Posts',
      query: ListPostsQuerySchema,
      success: { status: 200, description: 'the root posts, sorted by time', schema: PostListSchema },
      errors: ['invalid_request'],
      handler: ({ scope, query }) => listPosts(deps, scope, query),
    }),
    defineRoute({
      method: 'post',
      path: '/posts',
      operationId: 'createPosts',
      summary: 'Create a post on one or more platforms (now, schedule or draft); each platform on its own',
      tag: 'Posts',
      body: CreatePostsBodySchema,
      idempotent: true,
      success: {
        status: 201,
        description: 'at least one platform got its post group; one entry per platform, created or failed',
        schema: CreatePostsResultSchema,
      },
      errors: ['invalid_request', 'not_found', 'conflict', 'post_limit_reached', 'rate_limited', 'provider_error'],
      handler: ({ scope, body }) => createPosts(deps, scope, body),
    }),
    defineRoute({
      method: 'get',
      path: '/posts/:id',
      operationId: 'getPost',
      summary: 'Get the post group a post belongs to (a thread reply id answers its group)',
      tag: 'Posts',
      params: IdParamsSchema,
      success: { status: 200, description: 'the post group', schema: PostGroupSchema },
      errors: ['invalid_request', 'not_found'],
      handler: ({ scope, params }) => getPostGroup(deps, scope, params.id),
    }),
    defineRoute({
      method: 'delete',
      path: '/posts/:id',
      operationId: 'deletePost',
      summary: 'Delete the whole post group (our records only; a post already on TikTok stays there)',
      tag: 'Posts',
      params: IdParamsSchema,
      success: { status: 204, description: 'deleted' },
      errors: ['invalid_request', 'not_found', 'conflict'],
      handler: ({ scope, params }) => deletePostGroup(deps, scope, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: '/posts/:id/schedule',
      operationId: 'reschedulePost',
      summary: 'Move a draft or a queued post to another (future) time',
      tag: 'Posts',
      params: IdParamsSchema,
      body: ReschedulePostBodySchema,
      success: { status: 200, description: 'the updated post group', schema: PostGroupSchema },
      errors: ['invalid_request', 'not_found', 'conflict'],
      handler: ({ scope, params, body }) => reschedulePost(deps, scope, params.id, body),
    }),
    defineRoute({
      method: 'post',
      path: '/posts/:id/publish',
      operationId: 'publishPost',
      summary: 'Publish a draft now or at scheduledFor, optionally with reviewed content and settings',
      tag: 'Posts',
      params: IdParamsSchema,
      body: PublishPostBodySchema,
      idempotent: true,
      success: { status: 200, description: 'the post group, now in QUEUE', schema: PostGroupSchema },
      errors: [
        'invalid_request',
        'not_found',
        'not_a_draft',
        'conflict',
        'post_limit_reached',
        'rate_limited',
        'provider_error',
      ],
      handler: ({ scope, params, body }) => publishDraft(deps, scope, params.id, body),
    }),
  ];
}
