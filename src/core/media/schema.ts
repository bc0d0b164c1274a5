import { z } from 'zod';
import type { IngestedFile } from './ingest.js';
import { MEDIA_MIME_TYPES } from './sniff.js';
import { trimmedText } from '../text-schema.js';

/** An ingested file and the name its upload carried. */
export type UploadedFile = IngestedFile & { uploadedName?: string | undefined };

/**
 * How an image outside a network's aspect limits is made to fit (a post's request asks for it): `pad` shows
 * the whole image on a blurred, darkened copy of itself or on a colour, `crop` keeps its centre.
 */
export const AspectFitSchema = z
  .discriminatedUnion('mode', [
    z.object({ mode: z.literal('crop') }),
    z.object({
      mode: z.literal('pad'),
      background: z
        .union([z.literal('blur'), z.string().regex(/^#[0-9a-fA-F]{6}$/) as z.ZodType<`#${string}`>])
        .default('blur')
        .describe('blur (default): a blurred, darkened copy of the image; or a colour as #rrggbb'),
    }),
  ])
  .describe('pad: the whole image on a background; crop: its centre');

/** A media object (spec section 2); shared by every adapter. */
export const MediaSchema = z
  .object({
    id: z.uuid(),
    storageKey: z.string().describe('opaque key of the bytes in the media store'),
    publicUrl: z.url().describe('where anyone (TikTok included) can fetch the bytes; unguessable'),
    previewUrl: z.url().describe('a small preview image (a placeholder for videos)'),
    mimeType: z.string().describe('the type of the stored bytes (what publicUrl serves)'),
    convertedFrom: z
      .enum(['image/png'])
      .nullable()
      .describe(
        'the type the file was uploaded as when Postdeck converted it to mimeType before storing it (a PNG is stored as a quality-95 JPEG, transparency on white); null when stored as uploaded',
      ),
    size: z.int().nullable(),
    mediaType: z.enum(['image', 'video', 'audio', 'file']),
    originalFileName: z.string(),
    status: z.enum(['PENDING', 'READY']),
    source: z.enum(['upload', 'composite', 'generated']),
    thumbnailMetadata: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('images: { width, height }; videos: { width, height, durationSec, fps }, each null when unreadable'),
    finalizedAt: z.iso.datetime().nullable(),
    folderId: z.uuid().nullable().describe('null means the root'),
    createdAt: z.iso.datetime(),
    fittedFrom: z
      .object({ mediaId: z.uuid(), fit: AspectFitSchema })
      .optional()
      .describe("only on an image Postdeck fitted to a network's aspect ratios: the original and how it was fitted"),
  })
  .meta({ id: 'Media' });

/** `{media: [...]}` plus the cursor of the next page when there is one. */
export const MediaListSchema = z
  .object({
    media: z.array(MediaSchema),
    nextCursor: z.string().optional().describe('pass as `cursor` for the next page; absent on the last page'),
  })
  .meta({ id: 'MediaList' });

/** A media folder (spec section 2); `organizationId` is the workspace. */
export const MediaFolderSchema = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    name: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'MediaFolder' });

export const MediaFolderListSchema = z.object({ folders: z.array(MediaFolderSchema) }).meta({ id: 'MediaFolderList' });

/** A folder id, or the string `null` for the root (spec: folderId query and upload field). */
export const FolderRefSchema = z
  .union([z.literal('null'), z.uuid()])
  .describe('a folder uuid, or the string null for the root');

export const ListMediaInputSchema = z.object({
  folderId: FolderRefSchema.optional().describe('a folder uuid, the string null for the root; omitted lists all'),
  mediaType: z.enum(['image', 'video']).optional(),
  source: z.enum(['upload', 'composite', 'generated', 'all']).default('upload'),
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('page size, 1 to 500; default 100'),
  cursor: z.string().min(1).max(200).optional().describe('nextCursor of the previous page'),
});

/** The media object an operation acts on. */
export const MediaIdInputSchema = z.object({ id: z.uuid().describe('the media id') });

export const MoveMediaInputSchema = MediaIdInputSchema.extend({
  folderId: z.uuid().nullable().describe('the folder to move the media to; null for the root'),
});

/** A declared MIME type, from the one list uploads accept. */
export const MediaMimeTypeSchema = z.enum(MEDIA_MIME_TYPES);

/** A declared kind of media. */
export const MediaKindSchema = z.enum(['image', 'video']);

/** The text fields of an upload, which come with its bytes. */
export const UploadFieldsSchema = z.object({
  fileName: trimmedText(255).optional().describe("overrides the uploaded file's name"),
  mimeType: z
    .string()
    .optional()
    .describe(
      'image/jpeg, image/webp, image/png (stored as JPEG), video/mp4, video/webm or video/quicktime; must match the bytes',
    ),
  mediaType: z.string().optional().describe('image or video; must match the bytes'),
  folderId: FolderRefSchema.optional(),
});

/** Bytes already streamed into the store (and checked on the way), waiting to become media. */
export const UploadedFileSchema = z.custom<UploadedFile>(
  (value) => typeof value === 'object' && value !== null && typeof (value as UploadedFile).storageKey === 'string',
  'the uploaded bytes',
);

/** What upload media takes: the stored bytes and the text fields sent with them. */
export const UploadMediaInputSchema = UploadFieldsSchema.extend({ file: UploadedFileSchema });

export const FolderNameSchema = trimmedText(255);

/** The folder an operation acts on. */
export const FolderIdInputSchema = z.object({ id: z.uuid().describe('the folder id') });

export const CreateFolderInputSchema = z.object({ name: FolderNameSchema });

export const RenameFolderInputSchema = FolderIdInputSchema.extend({ name: FolderNameSchema });
