import { randomUUID } from 'node:crypto';
import type { CoreDeps, Scope } from '../context.js';
import type { MediaFolderDoc } from './documents.js';
import { AppError, isDuplicateKeyError, notFound } from '../errors.js';
import { toFolder, type MediaFolder } from './view.js';

/** The folders of the workspace, by name. */
export async function listFolders(deps: CoreDeps, scope: Scope): Promise<MediaFolder[]> {
  const docs = await deps.db.mediaFolders.find({ workspaceId: scope.workspaceId }).sort({ nameKey: 1 }).toArray();
  return docs.map(toFolder);
}

/** Creates a folder; a name already used in the workspace (ignoring case) is a 409 conflict. */
export async function createFolder(deps: CoreDeps, scope: Scope, name: string): Promise<MediaFolder> {
  const now = deps.now();
  const doc: MediaFolderDoc = {
    _id: randomUUID(),
    workspaceId: scope.workspaceId,
    name,
    nameKey: nameKeyOf(name),
    createdAt: now,
    updatedAt: now,
  };
  await reserveName(deps, scope, doc.nameKey, doc._id, name);
  try {
    await deps.db.mediaFolders.insertOne(doc);
  } catch (error) {
    await releaseName(deps, scope, doc.nameKey);
    throw error;
  }
  return toFolder(doc);
}

/** Renames a folder of the workspace; a name another folder has (ignoring case) is a 409 conflict. */
export async function renameFolder(deps: CoreDeps, scope: Scope, id: string, name: string): Promise<MediaFolder> {
  const existing = await requireFolder(deps, scope, id);
  const nameKey = nameKeyOf(name);
  const changesKey = nameKey !== existing.nameKey;
  if (changesKey) await reserveName(deps, scope, nameKey, id, name);
  const updatedAt = deps.now();
  await deps.db.mediaFolders.updateOne(
    { _id: id, workspaceId: scope.workspaceId },
    { $set: { name, nameKey, updatedAt } },
  );
  if (changesKey) await releaseName(deps, scope, existing.nameKey);
  return toFolder({ ...existing, name, nameKey, updatedAt });
}

/** Deletes an empty folder; one that still holds media is a 409 conflict (move or delete them first). */
export async function deleteFolder(deps: CoreDeps, scope: Scope, id: string): Promise<void> {
  const existing = await requireFolder(deps, scope, id);
  const inside = await deps.db.media.countDocuments({ workspaceId: scope.workspaceId, folderId: id }, { limit: 1 });
  if (inside > 0) throw new AppError('conflict', 'The folder is not empty: move or delete its media first');
  await deps.db.mediaFolders.deleteOne({ _id: id, workspaceId: scope.workspaceId });
  await releaseName(deps, scope, existing.nameKey);
}

/** The workspace's folder `id`; another workspace's folder is not found, like a missing one. */
export async function requireFolder(deps: CoreDeps, scope: Scope, id: string): Promise<MediaFolderDoc> {
  const doc = await deps.db.mediaFolders.findOne({ _id: id });
  if (!doc || doc.workspaceId !== scope.workspaceId) throw notFound('Folder');
  return doc;
}

async function reserveName(deps: CoreDeps, scope: Scope, nameKey: string, folderId: string, name: string) {
  try {
    await deps.db.mediaFolderNames.insertOne({
      _id: `${scope.workspaceId}:${nameKey}`,
      folderId,
      createdAt: deps.now(),
    });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    throw new AppError('conflict', `A folder named "${name}" already exists in this workspace (names ignore case)`);
  }
}

async function releaseName(deps: CoreDeps, scope: Scope, nameKey: string): Promise<void> {
  await deps.db.mediaFolderNames.deleteOne({ _id: `${scope.workspaceId}:${nameKey}` });
}

function nameKeyOf(name: string): string {
  return name.normalize('NFC').toLowerCase();
}
