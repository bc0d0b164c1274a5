import { Readable } from 'node:stream';
import { z } from 'zod';
import type { CoreDeps } from '../core/context.js';
import { AppError } from '../core/errors.js';
import { ingestUpload } from '../core/media/ingest.js';
import { UploadFieldsSchema } from '../core/media/schema.js';
import { trimmedText } from '../core/text-schema.js';

/** The most an upload may carry inline as base64, decoded (larger files: the REST upload). */
export const MAX_INLINE_UPLOAD_BYTES = 10 * 1024 * 1024;

/**
 * upload_media's arguments over MCP: the REST upload's fields (a name optional, as there), the bytes as
 * base64 instead of a form part. Strict: Postdeck hosts what it posts, so a `url` to fetch is refused by
 * name, never ignored (spec 1); `path` is the stdio bridge's, which reads the agent's own disk.
 */
export const InlineUploadSchema = z.strictObject(
  {
    ...UploadFieldsSchema.shape,
    fileName: trimmedText(255)
      .optional()
      .describe("the file's name, e.g. slide-1.jpg; without it the name is upload.<extension of the type>"),
    content: z
      .base64()
      .max(Math.ceil(MAX_INLINE_UPLOAD_BYTES / 3) * 4)
      .describe(
        `the file's bytes, base64-encoded; at most ${MAX_INLINE_UPLOAD_BYTES / 1024 / 1024} MB decoded. JPEG, WebP, PNG (stored as JPEG), MP4, WebM or QuickTime, checked from the bytes`,
      ),
  },
  {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys' || !issue.keys.includes('path')) return undefined;
      return 'path works only over stdio (`postdeck mcp` reads the file on your machine); over HTTP send the bytes as content (base64), or upload larger files through create_upload_url';
    },
  },
);

/**
 * Stores the decoded bytes exactly as a REST upload is stored (type sniffed, size limits enforced)
 * and returns upload_media's input; the operation deletes the bytes if it then refuses them.
 */
export async function inlineUploadInput(deps: CoreDeps, args: z.output<typeof InlineUploadSchema>) {
  const { content, ...fields } = args;
  const bytes = Buffer.from(content, 'base64');
  if (bytes.length === 0) throw new AppError('invalid_media_file', 'The file is empty');
  const file = await ingestUpload(deps.media, Readable.from([bytes]));
  return { ...fields, file: { ...file, uploadedName: fields.fileName } };
}
