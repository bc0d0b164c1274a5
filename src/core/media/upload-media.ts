import { randomBytes, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import type { MediaDoc, MediaSource } from './documents.js';
import { AppError } from '../errors.js';
import type { MediaDeps } from './deps.js';
import { requireFolder } from './folders.js';
import { makeStorable, type StorableFile } from './convert-png.js';
import type { IngestedFile } from './ingest.js';
import { describeImage, readImageSize } from './preview.js';
import type { UploadFieldsSchema } from './schema.js';
import { MEDIA_MIME_TYPES, mediaTypeOf } from './sniff.js';
import { probeStoredVideo, type VideoFacts } from './video-probe.js';
import { toMedia, type Media } from './view.js';

/** The validated text fields of an upload. */
export type UploadFields = z.infer<typeof UploadFieldsSchema>;

/**
 * Turns an ingested file into a READY media object: checks the declared type against the sniffed
 * one and the folder against the workspace, converts a PNG to JPEG (the record says so in
 * `convertedFrom` and keeps the uploaded name), records an image's size and preview or a video's
 * size, duration and frame rate, then inserts.
 * On any failure the stored bytes are deleted, so a refused upload leaves nothing behind.
 */
export async function createUploadedMedia(
  deps: CoreDeps,
  media: MediaDeps,
  scope: Scope,
  file: IngestedFile,
  fields: UploadFields & { uploadedName?: string | undefined },
  source: MediaSource = 'upload',
  extras: Pick<MediaDoc, 'caption' | 'fittedFrom'> = {},
): Promise<Media> {
  let previewKey: string | undefined;
  let stored: StorableFile | undefined;
  try {
    checkDeclaredType(file, fields);
    const folderId = fields.folderId === undefined || fields.folderId === 'null' ? null : fields.folderId;
    if (folderId) await requireFolder(deps, scope, folderId);

    const mediaType = mediaTypeOf(file.mimeType);
    let thumbnailMetadata: Record<string, unknown> | null = null;
    let preview: MediaDoc['preview'] = null;
    let kept: StorableFile;
    if (mediaType === 'image') {
      // The pixel cap from the header first, so an image bomb is refused without waiting for a slot.
      const size = await readImageSize(media.store, file.storageKey);
      // A request is refused when the decode queue is full; Postdeck's own images wait their turn.
      const whenBusy = source === 'upload' ? 'refuse' : 'wait';
      const { converted, facts } = await media.decodes.run(async () => {
        stored = await makeStorable(media, file, size.width * size.height);
        return { converted: stored, facts: await describeImage(media.store, stored.storageKey) };
      }, whenBusy);
      kept = converted;
      previewKey = facts.preview.storageKey;
      thumbnailMetadata = { width: facts.width, height: facts.height };
      preview = facts.preview;
    } else {
      kept = stored = { ...file, convertedFrom: null };
      // Same place as an image's size: read from the store, only the parts that hold it.
      const facts = await probeStoredVideo(media.store, kept.storageKey, kept.size, kept.mimeType);
      requireReadableVideo(kept.mimeType, facts);
      thumbnailMetadata = { ...facts };
    }
    const now = deps.now();
    const doc: MediaDoc = {
      _id: randomUUID(),
      workspaceId: scope.workspaceId,
      source,
      status: 'READY',
      storageKey: kept.storageKey,
      publicToken: randomBytes(16).toString('hex'),
      mimeType: kept.mimeType,
      ...(kept.convertedFrom ? { convertedFrom: kept.convertedFrom } : {}),
      mediaType,
      size: kept.size,
      sha256: kept.sha256,
      originalFileName: fields.fileName ?? fields.uploadedName ?? defaultName(file.mimeType),
      folderId,
      thumbnailMetadata,
      preview,
      finalizedAt: now,
      createdAt: now,
      ...(extras.caption ? { caption: extras.caption } : {}),
      ...(extras.fittedFrom ? { fittedFrom: extras.fittedFrom } : {}),
    };
    await deps.db.media.insertOne(doc);
    return toMedia(doc, media.publicBaseUrl);
  } catch (error) {
    await discardIngested(media, file);
    if (stored) await discardIngested(media, stored);
    if (previewKey) await media.store.delete(previewKey);
    throw error;
  }
}

/**
 * An MP4 or QuickTime file whose container says no duration or has no video track would only fail
 * at TikTok: refuse it now. (WebM containers are not read; see docs/decisions.md.)
 */
function requireReadableVideo(mimeType: string, facts: VideoFacts): void {
  if (mimeType !== 'video/mp4' && mimeType !== 'video/quicktime') return;
  const missing = [
    ...(facts.durationSec === null || facts.durationSec <= 0 ? ['duration'] : []),
    ...(facts.width === null || facts.height === null ? ['video track'] : []),
  ];
  if (missing.length > 0) {
    throw new AppError(
      'invalid_media_file',
      `The video could not be read: its container has no ${missing.join(' and no ')}. Upload a complete MP4 or MOV file.`,
    );
  }
}

/** Deletes the bytes of an ingested file that will not become a media object. */
export async function discardIngested(media: MediaDeps, file: IngestedFile): Promise<void> {
  await media.store.delete(file.storageKey);
}

function checkDeclaredType(file: IngestedFile, fields: UploadFields): void {
  if (fields.mimeType !== undefined) {
    if (!(MEDIA_MIME_TYPES as readonly string[]).includes(fields.mimeType)) {
      throw new AppError('invalid_media_file', `mimeType must be one of ${MEDIA_MIME_TYPES.join(', ')}`);
    }
    if (fields.mimeType !== file.mimeType) {
      throw new AppError(
        'invalid_media_file',
        `The file was declared ${fields.mimeType} but its content is ${file.mimeType}`,
      );
    }
  }
  if (fields.mediaType !== undefined) {
    if (fields.mediaType !== 'image' && fields.mediaType !== 'video') {
      throw new AppError('invalid_media_file', 'mediaType must be image or video');
    }
    if (fields.mediaType !== mediaTypeOf(file.mimeType)) {
      throw new AppError(
        'invalid_media_file',
        `The file was declared ${fields.mediaType} but its content is ${mediaTypeOf(file.mimeType)}`,
      );
    }
  }
}

function defaultName(mimeType: string): string {
  const extension = {
    'image/jpeg': 'jpg',
    'image/webp': 'webp',
    'image/png': 'png',
    'video/mp4': 'mp4',
    'video/webm': 'webm',
  };
  return `upload.${extension[mimeType as keyof typeof extension] ?? 'mov'}`;
}
