import { listAuditEntriesOperation } from '../../core/audit/operations.js';
import {
  createMediaFolderOperation,
  deleteMediaFolderOperation,
  listMediaFoldersOperation,
  renameMediaFolderOperation,
} from '../../core/media/folder-operations.js';
import {
  deleteMediaOperation,
  getMediaOperation,
  listMediaOperation,
  moveMediaOperation,
  uploadMediaOperation,
  createUploadUrlOperation,
} from '../../core/media/operations.js';
import { getPlatformSchemaOperation, listPlatformsOperation } from '../../core/platforms/operations.js';
import {
  createPostOperation,
  deletePostOperation,
  getPostOperation,
  listPostsOperation,
  publishPostOperation,
  reschedulePostOperation,
} from '../../core/posts/operations.js';
import { getUsageOperation } from '../../core/credits/operations.js';
import {
  getAccountMetricsOperation,
  getPostMetricsOperation,
  listPostMetricsOperation,
  listTopHooksOperation,
} from '../../core/insights/operations.js';
import {
  generateCaptionsOperation,
  compositeSlidesOperation,
  generateSlideshowOperation,
  getGenerationJobOperation,
} from '../../core/slides/operations.js';
import {
  createWebhookOperation,
  deleteWebhookOperation,
  listWebhookDeliveriesOperation,
  listWebhooksOperation,
  redeliverWebhookOperation,
  rotateWebhookSecretOperation,
  sendTestWebhookOperation,
} from '../../core/webhooks/operations.js';
import { relocateCreatePostsResult } from './create-posts-result.js';
import { multipartUpload } from './read-upload.js';
import { CREATE_POST_EXAMPLES, GENERATE_SLIDESHOW_EXAMPLES, PUBLISH_POST_EXAMPLES } from './request-examples.js';
import { bindRest, type RestRoute } from './rest-route.js';

/**
 * Every /public/v1 route: which operation answers at which method and path. A new operation gets
 * its line here; its schemas, errors and behaviour come from the operation itself.
 */
export const REST_ROUTES: readonly RestRoute[] = [
  bindRest(listPlatformsOperation, { method: 'get', path: '/platforms', status: 200, tag: 'Platforms' }),
  bindRest(getPlatformSchemaOperation, { method: 'get', path: '/platforms/:id/schema', status: 200, tag: 'Platforms' }),
  // Folders before `/media/:id`, whose id pattern would not match `folders` anyway.
  bindRest(listMediaFoldersOperation, { method: 'get', path: '/media/folders', status: 200, tag: 'Media' }),
  bindRest(createMediaFolderOperation, {
    method: 'post',
    path: '/media/folders',
    status: 201,
    tag: 'Media',
    // A retried create would otherwise hit its own name as a conflict.
    idempotent: true,
  }),
  bindRest(renameMediaFolderOperation, { method: 'patch', path: '/media/folders/:id', status: 200, tag: 'Media' }),
  bindRest(deleteMediaFolderOperation, { method: 'delete', path: '/media/folders/:id', status: 204, tag: 'Media' }),
  bindRest(listMediaOperation, {
    method: 'get',
    path: '/media',
    status: 200,
    tag: 'Media',
    query: ['folderId', 'mediaType', 'source', 'limit', 'cursor'],
  }),
  bindRest(uploadMediaOperation, {
    method: 'post',
    path: '/media',
    status: 201,
    tag: 'Media',
    multipart: multipartUpload,
  }),
  bindRest(createUploadUrlOperation, { method: 'post', path: '/media/upload-urls', status: 201, tag: 'Media' }),
  bindRest(getMediaOperation, { method: 'get', path: '/media/:id', status: 200, tag: 'Media' }),
  bindRest(moveMediaOperation, { method: 'patch', path: '/media/:id', status: 200, tag: 'Media' }),
  bindRest(deleteMediaOperation, { method: 'delete', path: '/media/:id', status: 204, tag: 'Media' }),
  bindRest(listPostsOperation, {
    method: 'get',
    path: '/posts',
    status: 200,
    tag: 'Posts',
    query: ['startDate', 'endDate'],
  }),
  bindRest(createPostOperation, {
    method: 'post',
    path: '/posts',
    status: 201,
    tag: 'Posts',
    bodyName: 'PostCreate',
    idempotent: true,
    relocateResult: relocateCreatePostsResult,
    examples: CREATE_POST_EXAMPLES,
  }),
  bindRest(getPostOperation, { method: 'get', path: '/posts/:id', status: 200, tag: 'Posts' }),
  bindRest(deletePostOperation, { method: 'delete', path: '/posts/:id', status: 204, tag: 'Posts' }),
  bindRest(reschedulePostOperation, {
    method: 'patch',
    path: '/posts/:id/schedule',
    status: 200,
    tag: 'Posts',
    bodyName: 'PostReschedule',
  }),
  bindRest(publishPostOperation, {
    method: 'post',
    path: '/posts/:id/publish',
    status: 200,
    tag: 'Posts',
    bodyName: 'PostPublish',
    idempotent: true,
    examples: PUBLISH_POST_EXAMPLES,
  }),
  bindRest(generateCaptionsOperation, {
    method: 'post',
    path: '/slides/caption',
    status: 200,
    tag: 'Slides',
    bodyName: 'SlideCaptionRequest',
    idempotent: true,
  }),
  bindRest(compositeSlidesOperation, {
    method: 'post',
    path: '/slides/composite',
    status: 201,
    tag: 'Slides',
    bodyName: 'SlideCompositeRequest',
    idempotent: true,
  }),
  bindRest(generateSlideshowOperation, {
    method: 'post',
    path: '/slides/generate',
    status: 202,
    tag: 'Slides',
    bodyName: 'SlideshowGenerateRequest',
    idempotent: true,
    examples: GENERATE_SLIDESHOW_EXAMPLES,
  }),
  bindRest(getGenerationJobOperation, { method: 'get', path: '/slides/generate/:id', status: 200, tag: 'Slides' }),
  bindRest(getUsageOperation, { method: 'get', path: '/usage', status: 200, tag: 'Usage' }),
  bindRest(getPostMetricsOperation, { method: 'get', path: '/posts/:id/metrics', status: 200, tag: 'Analytics' }),
  bindRest(listPostMetricsOperation, {
    method: 'get',
    path: '/analytics/posts',
    status: 200,
    tag: 'Analytics',
    query: ['startDate', 'endDate', 'platformId', 'provider', 'sortBy', 'limit', 'cursor'],
  }),
  bindRest(listTopHooksOperation, {
    method: 'get',
    path: '/analytics/hooks',
    status: 200,
    tag: 'Analytics',
    query: ['platformId', 'provider', 'language', 'limit'],
  }),
  bindRest(getAccountMetricsOperation, {
    method: 'get',
    path: '/analytics/accounts/:id',
    status: 200,
    tag: 'Analytics',
    query: ['startDate', 'endDate'],
  }),
  bindRest(createWebhookOperation, { method: 'post', path: '/webhooks', status: 201, tag: 'Webhooks' }),
  bindRest(listWebhooksOperation, { method: 'get', path: '/webhooks', status: 200, tag: 'Webhooks' }),
  bindRest(deleteWebhookOperation, { method: 'delete', path: '/webhooks/:id', status: 204, tag: 'Webhooks' }),
  bindRest(listWebhookDeliveriesOperation, {
    method: 'get',
    path: '/webhooks/:id/deliveries',
    status: 200,
    tag: 'Webhooks',
    query: ['limit'],
  }),
  bindRest(redeliverWebhookOperation, {
    method: 'post',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    status: 202,
    tag: 'Webhooks',
  }),
  bindRest(sendTestWebhookOperation, { method: 'post', path: '/webhooks/:id/test', status: 202, tag: 'Webhooks' }),
  bindRest(rotateWebhookSecretOperation, {
    method: 'post',
    path: '/webhooks/:id/rotate-secret',
    status: 200,
    tag: 'Webhooks',
  }),
  bindRest(listAuditEntriesOperation, {
    method: 'get',
    path: '/audit',
    status: 200,
    tag: 'Audit',
    query: ['startDate', 'endDate', 'action', 'actor', 'limit', 'cursor'],
  }),
];
