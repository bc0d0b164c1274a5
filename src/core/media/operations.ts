import { defineOperation } from '../operations/operation.js';
import { listMedia } from './list-media.js';
import { deleteMedia, getMedia, moveMedia } from './manage-media.js';
import {
  ListMediaInputSchema,
  MediaIdInputSchema,
  MediaListSchema,
  MediaSchema,
  MoveMediaInputSchema,
  UploadMediaInputSchema,
} from './schema.js';
import { createUploadLink, UploadLinkInputSchema, UploadLinkSchema } from './upload-links.js';
import { createUploadedMedia } from './upload-media.js';

export const listMediaOperation = defineOperation({
  name: 'list_media',
  title: 'List media',
  summary: 'List media, newest first, optionally by folder, media type and source',
  input: ListMediaInputSchema,
  output: MediaListSchema,
  result: 'one page of media',
  errors: ['invalid_request', 'not_found'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => listMedia(deps, deps.media, scope, input),
});

export const uploadMediaOperation = defineOperation({
  name: 'upload_media',
  title: 'Upload media',
  summary: 'Upload an image or video; the result is READY at once',
  input: UploadMediaInputSchema,
  output: MediaSchema,
  result: 'the new media object',
  errors: [
    'invalid_media_file',
    'invalid_request',
    'not_found',
    'payload_too_large',
    'unsupported_media_type',
    'server_busy',
  ],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: (deps, scope, { file, ...fields }) =>
    createUploadedMedia(deps, deps.media, scope, file, { ...fields, uploadedName: file.uploadedName }),
});

export const getMediaOperation = defineOperation({
  name: 'get_media',
  title: 'Get media',
  summary: 'Get one media object',
  input: MediaIdInputSchema,
  output: MediaSchema,
  result: 'the media object',
  errors: ['invalid_request', 'not_found'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => getMedia(deps, deps.media, scope, input.id),
});

export const moveMediaOperation = defineOperation({
  name: 'move_media',
  title: 'Move media',
  summary: 'Move a media object to a folder (or to the root with null)',
  input: MoveMediaInputSchema,
  output: MediaSchema,
  result: 'the moved media object',
  errors: ['invalid_request', 'not_found'],
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => moveMedia(deps, deps.media, scope, input.id, input.folderId),
});

export const deleteMediaOperation = defineOperation({
  name: 'delete_media',
  title: 'Delete media',
  summary: 'Delete a media object and its bytes, unless a scheduled or queued post uses it',
  input: MediaIdInputSchema,
  result: 'deleted',
  errors: ['invalid_request', 'not_found', 'conflict'],
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  run: (deps, scope, input) => deleteMedia(deps, deps.media, scope, input.id),
});

export const createUploadUrlOperation = defineOperation({
  name: 'create_upload_url',
  title: 'Create an upload URL',
  summary:
    'Get a short-lived, single-use URL that uploads one large file (a video) with PUT, e.g. curl -T, without a key',
  input: UploadLinkInputSchema,
  output: UploadLinkSchema,
  result: 'the URL, its expiry, the size limits and a ready curl command; the PUT answers the new media object',
  errors: ['invalid_request', 'not_found'],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: (deps, scope, input) => createUploadLink(deps, scope, input),
});

/** The media library operations, in the order the API reference lists them. */
export const mediaOperations = [
  listMediaOperation,
  uploadMediaOperation,
  getMediaOperation,
  moveMediaOperation,
  deleteMediaOperation,
  createUploadUrlOperation,
] as const;
