import type { Filter } from 'mongodb';
import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import type { MediaDoc } from './documents.js';
import { AppError } from '../errors.js';
import type { MediaDeps } from './deps.js';
import { requireFolder } from './folders.js';
import type { ListMediaInputSchema } from './schema.js';
import { toMedia, type Media } from './view.js';

/** The validated listing filters. */
export type ListMediaInput = z.output<typeof ListMediaInputSchema>;

/**
 * One page of the workspace's media, newest first (ties broken by id so pages never overlap).
 * `nextCursor` is set only when more media follow; it encodes the last item's position.
 */
export async function listMedia(
  deps: CoreDeps,
  media: MediaDeps,
  scope: Scope,
  query: ListMediaInput,
): Promise<{ media: Media[]; nextCursor?: string }> {
  const filter: Filter<MediaDoc> = { workspaceId: scope.workspaceId };
  if (query.folderId === 'null') filter.folderId = null;
  else if (query.folderId !== undefined) {
    await requireFolder(deps, scope, query.folderId);
    filter.folderId = query.folderId;
  }
  if (query.mediaType) filter.mediaType = query.mediaType;
  if (query.source !== 'all') filter.source = query.source;
  if (query.cursor) {
    const after = decodeCursor(query.cursor);
    filter.$or = [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, _id: { $lt: after.id } }];
  }
  const docs = await deps.db.media
    .find(filter)
    .sort({ createdAt: -1, _id: -1 })
    .limit(query.limit + 1)
    .toArray();
  const page = docs.slice(0, query.limit);
  const last = page.at(-1);
  const result: { media: Media[]; nextCursor?: string } = {
    media: page.map((doc) => toMedia(doc, media.publicBaseUrl)),
  };
  if (docs.length > query.limit && last) result.nextCursor = encodeCursor(last);
  return result;
}

function encodeCursor(doc: MediaDoc): string {
  return Buffer.from(JSON.stringify([doc.createdAt.getTime(), doc._id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return { createdAt: new Date(value[0]), id: value[1] };
    }
  } catch {
    // Falls through to the error below: a cursor is opaque and only ever comes from us.
  }
  throw new AppError('invalid_request', 'The cursor is not valid', [
    { path: ['cursor'], message: 'not a cursor returned by this listing' },
  ]);
}
