import type { z } from 'zod';
import type { MediaDoc, MediaFolderDoc } from './documents.js';
import type { MediaFolderSchema, MediaSchema } from './schema.js';

/** A media object as the API shows it. */
export type Media = z.infer<typeof MediaSchema>;

/** A media folder as the API shows it. */
export type MediaFolder = z.infer<typeof MediaFolderSchema>;

/** The public URL of the bytes: the id finds the document, the token proves the link was given out. */
export function publicUrlOf(doc: Pick<MediaDoc, '_id' | 'publicToken'>, baseUrl: string): string {
  return `${baseUrl}/m/${doc._id}/${doc.publicToken}`;
}

/** Renders a stored media object in the API's shape. */
export function toMedia(doc: MediaDoc, baseUrl: string): Media {
  const publicUrl = publicUrlOf(doc, baseUrl);
  return {
    id: doc._id,
    storageKey: doc.storageKey,
    publicUrl,
    previewUrl: `${publicUrl}/preview`,
    mimeType: doc.mimeType,
    convertedFrom: doc.convertedFrom ?? null,
    size: doc.size,
    mediaType: doc.mediaType,
    originalFileName: doc.originalFileName,
    status: doc.status,
    source: doc.source,
    thumbnailMetadata: doc.thumbnailMetadata,
    finalizedAt: doc.finalizedAt ? doc.finalizedAt.toISOString() : null,
    folderId: doc.folderId,
    createdAt: doc.createdAt.toISOString(),
    ...(doc.fittedFrom ? { fittedFrom: { mediaId: doc.fittedFrom.mediaId, fit: doc.fittedFrom.fit } } : {}),
  };
}

/** Renders a stored folder in the API's shape (the spec calls the workspace an organization). */
export function toFolder(doc: MediaFolderDoc): MediaFolder {
  return {
    id: doc._id,
    organizationId: doc.workspaceId,
    name: doc.name,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}
