import type { CoreDeps, Scope } from '../context.js';
import type { MediaDoc } from './documents.js';
import { AppError, notFound } from '../errors.js';
import type { MediaDeps } from './deps.js';
import { requireFolder } from './folders.js';
import { deleteRenditions } from './renditions.js';
import { toMedia, type Media } from './view.js';

/** The workspace's media object `id`; another workspace's is not found, like a missing one. */
export async function requireMedia(deps: CoreDeps, scope: Scope, id: string): Promise<MediaDoc> {
  const doc = await deps.db.media.findOne({ _id: id });
  if (!doc || doc.workspaceId !== scope.workspaceId) throw notFound('Media');
  return doc;
}

/** One media object of the workspace. */
export async function getMedia(deps: CoreDeps, media: MediaDeps, scope: Scope, id: string): Promise<Media> {
  return toMedia(await requireMedia(deps, scope, id), media.publicBaseUrl);
}

/** Moves a media object to a folder of the workspace, or to the root with `null`. */
export async function moveMedia(
  deps: CoreDeps,
  media: MediaDeps,
  scope: Scope,
  id: string,
  folderId: string | null,
): Promise<Media> {
  const doc = await requireMedia(deps, scope, id);
  if (folderId) await requireFolder(deps, scope, folderId);
  await deps.db.media.updateOne({ _id: id, workspaceId: scope.workspaceId }, { $set: { folderId } });
  return toMedia({ ...doc, folderId }, media.publicBaseUrl);
}

/**
 * Deletes a media object and its bytes; refused with 409 while a scheduled or queued post uses it.
 * The record goes first, so its URLs stop working before the bytes disappear; renditions made for
 * publishing go with it.
 */
export async function deleteMedia(deps: CoreDeps, media: MediaDeps, scope: Scope, id: string): Promise<void> {
  const doc = await requireMedia(deps, scope, id);
  if (await media.isInUse(scope.workspaceId, id)) {
    throw new AppError('conflict', 'A scheduled or queued post uses this media; delete or change the post first');
  }
  await deps.db.media.deleteOne({ _id: id, workspaceId: scope.workspaceId });
  await media.store.delete(doc.storageKey);
  if (doc.preview) await media.store.delete(doc.preview.storageKey);
  await deleteRenditions(deps, media.store, id);
}
