import type { Hash } from 'node:crypto';
import { truncate } from 'node:fs/promises';
import path from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { PublishEngine } from './engine.js';
import { apiError } from './envelope.js';
import { checkVideo } from './media-checks.js';
import { appendStream, discard, sha256 } from './media-files.js';
import type { EmulatorOptions } from './options.js';
import type { Publish } from './publish-model.js';
import type { EmulatorState } from './state.js';

const VIDEO_TYPES = new Set(['video/mp4', 'video/quicktime', 'video/webm']);

/**
 * The upload host (contract 4.3 and 7): `PUT /video/?upload_id=&upload_token=` takes the chunks of a FILE_UPLOAD
 * publish in order, streams each to disk and answers 206 with `Content-Range: bytes 0-{last}/{total}`, or 201
 * after the last one (once the video checks ran). A chunk that fails in any way is cut off the file, so a retry
 * starts clean. The status codes are TikTok's; the error codes in the bodies are the emulator's own names.
 */
export function registerUploadHost(
  router: Router,
  state: EmulatorState,
  engine: PublishEngine,
  options: EmulatorOptions,
): void {
  // The running SHA-256 of each upload's accepted chunks (copied per chunk, so a failed chunk leaves it untouched).
  const hashes = new Map<string, Hash>();
  // Uploads with a chunk being written: a second chunk meanwhile does not match the progress (416).
  const busy = new Set<string>();

  router.put('/video/', async (ctx) => {
    const query = new URLSearchParams(ctx.querystring);
    const publish = [...state.publishes.values()].find((p) => p.upload?.uploadId === query.get('upload_id'));
    const upload = publish?.upload;
    if (!publish || !upload || upload.uploadToken !== query.get('upload_token') || publish.status === 'FAILED') {
      return refuse(ctx, 404, 'upload_not_found', 'No upload task exists for this URL.');
    }
    if (upload.expiresAt <= Date.now()) return refuse(ctx, 403, 'upload_url_expired', 'The upload URL has expired.');
    const failure = state.takeFailure(publish.openId, 'upload');
    if (failure) return refuse(ctx, failure.status, failure.code, 'Injected failure: the chunk was not stored.');
    const type = ctx.get('content-type').split(';')[0]!.trim().toLowerCase();
    const length = /^\d+$/.test(ctx.get('content-length')) ? Number(ctx.get('content-length')) : NaN;
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(ctx.get('content-range'));
    if (!VIDEO_TYPES.has(type) || !range || Number.isNaN(length)) {
      return refuse(
        ctx,
        400,
        'invalid_file_upload',
        'Content-Type, Content-Length or Content-Range is missing or malformed.',
      );
    }
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (last < first || last - first + 1 !== length || total !== upload.videoSize) {
      return refuse(
        ctx,
        400,
        'invalid_file_upload',
        'Content-Range does not agree with Content-Length or the video size.',
      );
    }
    // The next chunk must start where the received bytes end and end where init's chunking says.
    const index = upload.chunksReceived;
    const isLast = index === upload.totalChunkCount - 1;
    const expectedEnd = isLast ? upload.videoSize - 1 : (index + 1) * upload.chunkSize - 1;
    const inOrder = first === publish.uploadedBytes && last === expectedEnd;
    if (index >= upload.totalChunkCount || !inOrder || busy.has(upload.uploadId)) {
      return refuse(ctx, 416, 'range_not_satisfiable', 'Content-Range does not match the upload progress.', publish);
    }

    const file = path.join(options.mediaDir ?? '', `${upload.uploadId}.bin`);
    const hash = (hashes.get(upload.uploadId) ?? sha256()).copy();
    let written: number;
    busy.add(upload.uploadId);
    try {
      written = await appendStream(ctx.req, file, publish.uploadedBytes, hash, length);
      if (written !== length) await truncate(file, publish.uploadedBytes);
    } catch {
      return refuse(
        ctx,
        400,
        'invalid_file_upload',
        'The chunk body is longer than its Content-Length or was cut off.',
      );
    } finally {
      busy.delete(upload.uploadId);
    }
    if (written !== length) {
      return refuse(ctx, 400, 'invalid_file_upload', 'The chunk body is shorter than its Content-Length.');
    }
    if (publish.status !== 'PROCESSING_UPLOAD') {
      return refuse(ctx, 404, 'upload_not_found', 'The publish ended while the chunk arrived.');
    }
    hashes.set(upload.uploadId, hash);
    publish.uploadedBytes += written;
    upload.chunksReceived += 1;
    ctx.set('Content-Range', `bytes 0-${publish.uploadedBytes - 1}/${upload.videoSize}`);
    if (!isLast) {
      state.save();
      ctx.status = 206;
      return;
    }
    hashes.delete(upload.uploadId);
    const record = publish.media[0]!;
    record.bytes = publish.uploadedBytes;
    record.sha256 = hash.digest('hex');
    const maxSec = state.accounts.get(publish.openId)?.maxVideoPostDurationSec ?? 600;
    const checked = await checkVideo(file, record, maxSec).catch(() => 'internal' as const);
    await discard(file);
    engine.bytesIn(publish, checked);
    ctx.status = 201;
  });
}

// Answers an upload error after reading the rest of the chunk, so the client gets the answer instead of a reset.
async function refuse(ctx: Context, status: number, code: string, message: string, publish?: Publish): Promise<void> {
  try {
    for await (const _chunk of ctx.req as AsyncIterable<Buffer>) {
      // Discarded: a refused chunk is never stored.
    }
  } catch {
    // The client went away; nobody reads this answer.
  }
  if (publish?.upload && publish.uploadedBytes > 0) {
    ctx.set('Content-Range', `bytes 0-${publish.uploadedBytes - 1}/${publish.upload.videoSize}`);
  }
  apiError(ctx, status, code, message);
}
