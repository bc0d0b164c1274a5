import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import type { MediaDeps } from '../../core/media/deps.js';
import { MediaKindSchema, MediaMimeTypeSchema, UploadFieldsSchema } from '../../core/media/schema.js';
import { discardIngested } from '../../core/media/upload-media.js';
import { ingestUpload, type IngestedFile } from '../../core/media/ingest.js';
import type { MultipartBody } from './rest-route.js';

/**
 * The multipart body as OpenAPI documents it. The types are listed as enums here, while the
 * fields themselves accept any string, because the spec answers a wrong type with
 * `invalid_media_file`, not with a validation error.
 */
const UploadFormSchema = UploadFieldsSchema.extend({
  mimeType: MediaMimeTypeSchema.optional().describe('inferred from the bytes when omitted; must match them'),
  mediaType: MediaKindSchema.optional().describe('inferred from the MIME type when omitted'),
  file: z.string().meta({ format: 'binary' }).describe('the image or video'),
}).meta({ id: 'MediaUpload' });

/** Upload media over REST: the form's `file` part streams into the store, its text fields become the input. */
export const multipartUpload: MultipartBody = {
  schema: UploadFormSchema,
  async read(request, deps) {
    const upload = await readUpload(request, deps.media);
    const { file } = upload;
    if (!file) throw new AppError('invalid_media_file', 'The file field is missing: send the image or video as "file"');
    return {
      input: { ...upload.fields, file: { ...file, uploadedName: upload.uploadedName } },
      discard: () => discardIngested(deps.media, file),
    };
  },
};

/** A parsed upload: the text fields as sent, and the file already streamed into the store. */
export interface ReadUpload {
  fields: Record<string, string>;
  file: IngestedFile | undefined;
  /** The file name the client's multipart part carried. */
  uploadedName: string | undefined;
}

const FIELD_NAMES = new Set(['fileName', 'mimeType', 'mediaType', 'folderId']);

/**
 * Streams a multipart/form-data upload: the `file` part goes straight to the store (checked as
 * it flows), text fields are collected. Fields may come before or after the file. If anything
 * fails, the client disconnects included, the stored bytes are deleted before this rejects.
 */
export async function readUpload(request: IncomingMessage, media: MediaDeps): Promise<ReadUpload> {
  if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '')) {
    throw new AppError('unsupported_media_type', 'Send the upload as multipart/form-data');
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: request.headers,
      limits: { files: 1, fields: 10, fieldSize: 4096, parts: 11 },
    });
  } catch {
    throw new AppError('invalid_request', 'The multipart body has no boundary');
  }

  const fields: Record<string, string> = {};
  let uploadedName: string | undefined;
  let ingestion: Promise<IngestedFile> | undefined;
  let failure: Error | undefined;
  const fail = (error: unknown): void => {
    failure ??= error instanceof Error ? error : new AppError('invalid_request', errorText(error));
  };

  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || ingestion) {
        fail(new AppError('invalid_request', `Unexpected file part "${name}"; send one part named file`));
        stream.resume();
        return;
      }
      uploadedName = info.filename || undefined;
      ingestion = ingestUpload(media, stream);
      // Stop feeding a file the store has refused, without leaving the parser stuck.
      ingestion.catch((error: unknown) => {
        fail(error);
        stream.resume();
      });
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new AppError('invalid_request', `The field ${name} is too long`));
      else if (FIELD_NAMES.has(name)) fields[name] = value;
    });
    parser.on('filesLimit', () => fail(new AppError('invalid_request', 'Send exactly one file')));
    parser.on('partsLimit', () => fail(new AppError('invalid_request', 'The form has too many parts')));
    parser.on('close', resolve);
    parser.on('error', reject);
    const abort = (): void => {
      if (request.complete) return;
      const aborted = new AppError('invalid_request', 'The upload was interrupted');
      parser.destroy(aborted);
      reject(aborted);
    };
    request.on('close', abort);
    // The client may have gone while the key was being checked: 'close' will not come again.
    if (request.destroyed) abort();
  });
  request.pipe(parser);

  try {
    await parsed;
  } catch (error) {
    fail(new AppError('invalid_request', errorText(error)));
  }
  const settled = ingestion
    ? await ingestion.then(
        (file) => ({ file }),
        (error: unknown) => ({ error }),
      )
    : undefined;
  if (settled && 'error' in settled) fail(settled.error);
  const file = settled && 'file' in settled ? settled.file : undefined;
  if (failure !== undefined) {
    if (file) await discardIngested(media, file);
    throw failure;
  }
  return { fields, file, uploadedName };
}

function errorText(error: unknown): string {
  if (error instanceof AppError) return error.message;
  return `The multipart body could not be read (${error instanceof Error ? error.message : 'unknown error'})`;
}
