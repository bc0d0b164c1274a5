import { defineOperation } from '../operations/operation.js';
import { createPosts } from './create-posts.js';
import { deletePostGroup } from './delete-post.js';
import { getPostGroup } from './get-post.js';
import { listPosts } from './list-posts.js';
import { publishDraft } from './publish-draft.js';
import { reschedulePost } from './reschedule-post.js';
import {
  CreatePostsInputSchema,
  CreatePostsResultSchema,
  ListPostsInputSchema,
  PostGroupSchema,
  PostIdInputSchema,
  PostListSchema,
  PublishPostInputSchema,
  ReschedulePostInputSchema,
  requireTimeToSchedule,
} from './schema.js';

export const listPostsOperation = defineOperation({
  name: 'list_posts',
  title: 'List posts',
  summary: 'List root posts by their time (scheduledFor, else createdAt) in [startDate, endDate), at most 93 days',
  input: ListPostsInputSchema,
  output: PostListSchema,
  result: 'the root posts, sorted by time',
  errors: ['invalid_request'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => listPosts(deps, scope, input),
});

export const createPostOperation = defineOperation({
  name: 'create_post',
  title: 'Create posts',
  summary:
    'Create a post on one or more platforms, TikTok and Instagram accounts in one call (now, schedule or draft); each platform gets its own post group, and a failure on one never blocks another. One settings object serves every network: each takes the keys its posting schema declares (TikTok: privacy_level and the rest; Instagram: alt_text, collaborators, share_to_feed, thumb_offset) and ignores the keys another network of the request declares; a key no network of the request declares is refused',
  input: CreatePostsInputSchema,
  check: requireTimeToSchedule,
  output: CreatePostsResultSchema,
  result: 'at least one platform got its post group; one entry per platform, created or failed',
  errors: ['invalid_request', 'not_found', 'conflict', 'post_limit_reached', 'rate_limited', 'provider_error'],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  run: (deps, scope, input) => createPosts(deps, scope, input),
});

export const getPostOperation = defineOperation({
  name: 'get_post',
  title: 'Get a post',
  summary: 'Get the post group a post belongs to (a thread reply id or the group id answers it too)',
  input: PostIdInputSchema,
  output: PostGroupSchema,
  result: 'the post group',
  errors: ['invalid_request', 'not_found'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => getPostGroup(deps, scope, input.id),
});

export const deletePostOperation = defineOperation({
  name: 'delete_post',
  title: 'Delete a post',
  summary: 'Delete the whole post group (our records only; a post already on the network stays there)',
  input: PostIdInputSchema,
  result: 'deleted',
  errors: ['invalid_request', 'not_found', 'conflict'],
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  run: (deps, scope, input) => deletePostGroup(deps, scope, input.id),
});

export const reschedulePostOperation = defineOperation({
  name: 'reschedule_post',
  title: 'Reschedule a post',
  summary: 'Move a draft or a queued post to another (future) time',
  input: ReschedulePostInputSchema,
  output: PostGroupSchema,
  result: 'the updated post group',
  errors: ['invalid_request', 'not_found', 'conflict'],
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => reschedulePost(deps, scope, input),
});

export const publishPostOperation = defineOperation({
  name: 'publish_post',
  title: 'Publish a draft',
  summary: 'Publish a draft now or at scheduledFor, optionally with reviewed content and settings',
  input: PublishPostInputSchema,
  check: requireTimeToSchedule,
  output: PostGroupSchema,
  result: 'the post group, now in QUEUE',
  errors: [
    'invalid_request',
    'not_found',
    'not_a_draft',
    'conflict',
    'post_limit_reached',
    'rate_limited',
    'provider_error',
  ],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  run: (deps, scope, input) => publishDraft(deps, scope, input),
});

/** The post operations, in the order the API reference lists them. */
export const postOperations = [
  listPostsOperation,
  createPostOperation,
  getPostOperation,
  deletePostOperation,
  reschedulePostOperation,
  publishPostOperation,
] as const;
