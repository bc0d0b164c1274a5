import { Readable } from 'node:stream';
import type { CoreDeps, Scope } from '../context.js';
import type { FittedFromDoc, MediaCaptionDoc, MediaSource } from './documents.js';
import { ingestUpload } from './ingest.js';
import { createUploadedMedia } from './upload-media.js';
import type { Media } from './view.js';

/**
 * Stores bytes Postdeck made itself (a composited slide, an AI image, an image fitted to a network) as a
 * READY media object; a fitted image keeps its original's source.
 */
export async function storeMediaBytes(
  deps: CoreDeps,
  scope: Scope,
  bytes: Buffer,
  options: { source: MediaSource; fileName: string; caption?: MediaCaptionDoc; fittedFrom?: FittedFromDoc },
): Promise<Media> {
  const file = await ingestUpload(deps.media, Readable.from([bytes]));
  const fields = { fileName: options.fileName };
  const extras = {
    ...(options.caption ? { caption: options.caption } : {}),
    ...(options.fittedFrom ? { fittedFrom: options.fittedFrom } : {}),
  };
  return createUploadedMedia(deps, deps.media, scope, file, fields, options.source, extras);
}

/** The stored bytes of a media object, whole (images only: they are a few MB at most). */
export async function readMediaBytes(deps: CoreDeps, storageKey: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await deps.media.store.get(storageKey)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
