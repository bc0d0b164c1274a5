import type { CoreDeps } from '../../../core/context.js';
import { createFolder, deleteFolder, listFolders, renameFolder } from '../../../core/media/folders.js';
import {
  CreateFolderBodySchema,
  MediaFolderListSchema,
  MediaFolderSchema,
  UpdateFolderBodySchema,
} from '../../../core/media/schema.js';
import { IdParamsSchema } from '../params.js';
import { defineRoute, type AnyRoute } from '../../route.js';

/** The media folder routes. Declared before `/media/:id`, whose id pattern would not match anyway. */
export function folderRoutes(deps: CoreDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/media/folders',
      operationId: 'listMediaFolders',
      summary: 'List the media folders of this workspace',
      tag: 'Media',
      success: { status: 200, description: 'the folders', schema: MediaFolderListSchema },
      errors: [],
      handler: async ({ scope }) => ({ folders: await listFolders(deps, scope) }),
    }),
    defineRoute({
      method: 'post',
      path: '/media/folders',
      operationId: 'createMediaFolder',
      summary: 'Create a media folder (names are unique per workspace, ignoring case)',
      tag: 'Media',
      body: CreateFolderBodySchema,
      // A retried create would otherwise hit its own name as a conflict.
      idempotent: true,
      success: { status: 201, description: 'the new folder', schema: MediaFolderSchema },
      errors: ['invalid_request', 'conflict'],
      handler: ({ scope, body }) => createFolder(deps, scope, body.name),
    }),
    defineRoute({
      method: 'patch',
      path: '/media/folders/:id',
      operationId: 'renameMediaFolder',
      summary: 'Rename a media folder',
      tag: 'Media',
      params: IdParamsSchema,
      body: UpdateFolderBodySchema,
      success: { status: 200, description: 'the renamed folder', schema: MediaFolderSchema },
      errors: ['invalid_request', 'not_found', 'conflict'],
      handler: ({ scope, params, body }) => renameFolder(deps, scope, params.id, body.name),
    }),
    defineRoute({
      method: 'delete',
      path: '/media/folders/:id',
      operationId: 'deleteMediaFolder',
      summary: 'Delete an empty media folder',
      tag: 'Media',
      params: IdParamsSchema,
      success: { status: 204, description: 'deleted' },
      errors: ['invalid_request', 'not_found', 'conflict'],
      handler: ({ scope, params }) => deleteFolder(deps, scope, params.id),
    }),
  ];
}
