import { defineOperation } from '../operations/operation.js';
import { createFolder, deleteFolder, listFolders, renameFolder } from './folders.js';
import {
  CreateFolderInputSchema,
  FolderIdInputSchema,
  MediaFolderListSchema,
  MediaFolderSchema,
  RenameFolderInputSchema,
} from './schema.js';
import { z } from 'zod';

export const listMediaFoldersOperation = defineOperation({
  name: 'list_media_folders',
  title: 'List media folders',
  summary: 'List the media folders of this workspace',
  input: z.object({}),
  output: MediaFolderListSchema,
  result: 'the folders',
  errors: [],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async (deps, scope) => ({ folders: await listFolders(deps, scope) }),
});

export const createMediaFolderOperation = defineOperation({
  name: 'create_media_folder',
  title: 'Create a media folder',
  summary: 'Create a media folder (names are unique per workspace, ignoring case)',
  input: CreateFolderInputSchema,
  output: MediaFolderSchema,
  result: 'the new folder',
  errors: ['invalid_request', 'conflict'],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: (deps, scope, input) => createFolder(deps, scope, input.name),
});

export const renameMediaFolderOperation = defineOperation({
  name: 'rename_media_folder',
  title: 'Rename a media folder',
  summary: 'Give a media folder a new name, unique in the workspace; its media stay in it.',
  input: RenameFolderInputSchema,
  output: MediaFolderSchema,
  result: 'the renamed folder',
  errors: ['invalid_request', 'not_found', 'conflict'],
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => renameFolder(deps, scope, input.id, input.name),
});

export const deleteMediaFolderOperation = defineOperation({
  name: 'delete_media_folder',
  title: 'Delete a media folder',
  summary: 'Delete an empty media folder',
  input: FolderIdInputSchema,
  result: 'deleted',
  errors: ['invalid_request', 'not_found', 'conflict'],
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  run: (deps, scope, input) => deleteFolder(deps, scope, input.id),
});

/** The media folder operations, in the order the API reference lists them. */
export const mediaFolderOperations = [
  listMediaFoldersOperation,
  createMediaFolderOperation,
  renameMediaFolderOperation,
  deleteMediaFolderOperation,
] as const;
