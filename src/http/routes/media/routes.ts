import type { CoreDeps } from '../../../core/context.js';
import { AppError } from '../../../core/errors.js';
import type { MediaDeps } from '../../../core/media/deps.js';
import { listMedia } from '../../../core/media/list-media.js';
import { deleteMedia, getMedia, moveMedia } from '../../../core/media/manage-media.js';
import {
  ListMediaQuerySchema,
  MediaListSchema,
  MediaSchema,
  UpdateMediaBodySchema,
  UploadBodySchema,
  UploadFieldsSchema,
} from '../../../core/media/schema.js';
import { createUploadedMedia, discardIngested } from '../../../core/media/upload-media.js';
import { IdParamsSchema } from '../params.js';
import { defineRoute, type AnyRoute } from '../../route.js';
import { validate } from '../../validate.js';
import { readUpload } from './read-upload.js';

/** The media library routes: upload, list, get, move, delete. */
export function mediaRoutes(deps: CoreDeps, media: MediaDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/media',
      operationId: 'listMedia',
      summary: 'List media, newest first, optionally by folder, media type and source',
      tag: 'Media',
      query: ListMediaQuerySchema,
      success: { status: 200, description: 'one page of media', schema: MediaListSchema },
      errors: ['invalid_request', 'not_found'],
      handler: ({ scope, query }) => listMedia(deps, media, scope, query),
    }),
    defineRoute({
      method: 'post',
      path: '/media',
      operationId: 'uploadMedia',
      summary: 'Upload an image or video (multipart/form-data); the result is READY at once',
      tag: 'Media',
      multipart: { schema: UploadBodySchema },
      success: { status: 201, description: 'the new media object', schema: MediaSchema },
      errors: ['invalid_media_file', 'invalid_request', 'not_found', 'payload_too_large', 'unsupported_media_type'],
      handler: async ({ scope, request }) => {
        if (!request) throw new Error('upload route mounted without its request');
        const upload = await readUpload(request, media);
        if (!upload.file) {
          throw new AppError('invalid_media_file', 'The file field is missing: send the image or video as "file"');
        }
        let fields;
        try {
          fields = validate(UploadFieldsSchema, upload.fields, 'body');
        } catch (error) {
          await discardIngested(media, upload.file);
          throw error;
        }
        return createUploadedMedia(deps, media, scope, upload.file, { ...fields, uploadedName: upload.uploadedName });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/media/:id',
      operationId: 'getMedia',
      summary: 'Get one media object',
      tag: 'Media',
      params: IdParamsSchema,
      success: { status: 200, description: 'the media object', schema: MediaSchema },
      errors: ['invalid_request', 'not_found'],
      handler: ({ scope, params }) => getMedia(deps, media, scope, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: '/media/:id',
      operationId: 'moveMedia',
      summary: 'Move a media object to a folder (or to the root with null)',
      tag: 'Media',
      params: IdParamsSchema,
      body: UpdateMediaBodySchema,
      success: { status: 200, description: 'the moved media object', schema: MediaSchema },
      errors: ['invalid_request', 'not_found'],
      handler: ({ scope, params, body }) => moveMedia(deps, media, scope, params.id, body.folderId),
    }),
    defineRoute({
      method: 'delete',
      path: '/media/:id',
      operationId: 'deleteMedia',
      summary: 'Delete a media object and its bytes, unless a scheduled or queued post uses it',
      tag: 'Media',
      params: IdParamsSchema,
      success: { status: 204, description: 'deleted' },
      errors: ['invalid_request', 'not_found', 'conflict'],
      handler: ({ scope, params }) => deleteMedia(deps, media, scope, params.id),
    }),
  ];
}
