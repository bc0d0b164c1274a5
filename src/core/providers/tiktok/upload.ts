import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { TikTokChunk, TikTokChunkPlan } from './chunk-plan.js';
import { TikTokUploadError } from './errors.js';

/** The container types the upload host takes (contract 4.3). */
export type TikTokVideoMimeType = 'video/mp4' | 'video/quicktime' | 'video/webm';

/** The video to send: the plan its init declared, its type, and a way to read any byte range of it. */
export interface TikTokUploadSource {
  plan: TikTokChunkPlan;
  mimeType: TikTokVideoMimeType;
  /**
   * Opens bytes `start` to `end` inclusive (like fs.createReadStream and the media store's ranges).
   * Called once per attempt of a chunk, so the file is streamed and never held whole in memory.
   */
  open(start: number, end: number): Readable | Promise<Readable>;
}

export interface TikTokUploadOptions {
  /** Called after each accepted chunk with the bytes the host holds and the total. */
  onProgress?: (uploadedBytes: number, totalBytes: number) => void;
  /** Attempts per chunk on a 5xx, a 429 or a network error (default 4: one try and three retries). */
  maxAttemptsPerChunk?: number;
  /** First retry delay; doubles per attempt, with jitter (default 1000 ms). */
  retryDelayMs?: number;
  /** A chunk PUT fails when its connection is idle this long (default 60 s). */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
}

/** What one PUT answered. */
interface PutAnswer {
  status: number;
  contentRange: string | null;
  text: string;
}

/**
 * Sends a FILE_UPLOAD's bytes to its `upload_url` (contract 4.3): the plan's chunks in order, one PUT
 * each with Content-Type, Content-Length and `Content-Range: bytes first-last/total`, no Authorization
 * (the URL carries its token, and is used whole). 206 accepts a chunk, 201 the whole file. A chunk is
 * sent again on a 5xx, a 429 or a network error, a bounded number of times; a 416 whose `Content-Range`
 * shows the chunk already held (an earlier try's answer was lost) counts as accepted. Any other 416 is
 * a progress mismatch, reported with the host's count. Throws TikTokUploadError (an aborted `signal`
 * rejects with the signal's reason instead).
 */
export async function uploadVideo(
  uploadUrl: string,
  source: TikTokUploadSource,
  options: TikTokUploadOptions = {},
): Promise<void> {
  if (!URL.canParse(uploadUrl)) {
    throw new TikTokUploadError('upload_url_invalid', 'upload_url is not an absolute URL', 0, 0, null, 'client');
  }
  const url = new URL(uploadUrl);
  const { plan } = source;
  const maxAttempts = Math.max(1, options.maxAttemptsPerChunk ?? 4);
  for (const chunk of plan.chunks) {
    const isLast = chunk.index === plan.totalChunkCount - 1;
    for (let attempt = 1; ; attempt += 1) {
      options.signal?.throwIfAborted();
      let answer: PutAnswer;
      try {
        answer = await putChunk(url, chunk, plan.videoSize, source, options);
      } catch (error) {
        if (error instanceof TikTokUploadError || options.signal?.aborted || attempt >= maxAttempts) {
          throw asUploadError(error, chunk);
        }
        await delay(attempt, options);
        continue;
      }
      if ((answer.status >= 500 || answer.status === 429) && attempt < maxAttempts) {
        await delay(attempt, options);
        continue;
      }
      if (accepted(answer, chunk, isLast)) break;
      throw failure(answer, chunk, isLast);
    }
    options.onProgress?.(chunk.end + 1, plan.videoSize);
  }
}

/**
 * Whether the answer accepts this chunk: a 2xx in the right form, or a 416 whose Content-Range shows
 * the host holding exactly up to this chunk's end (an earlier try landed but its answer was lost).
 */
function accepted(answer: PutAnswer, chunk: TikTokChunk, isLast: boolean): boolean {
  if (answer.status >= 200 && answer.status < 300) return isLast ? answer.status !== 206 : answer.status !== 201;
  return answer.status === 416 && uploadedBytesOf(answer.contentRange) === chunk.end + 1;
}

function failure(answer: PutAnswer, chunk: TikTokChunk, isLast: boolean): TikTokUploadError {
  const held = uploadedBytesOf(answer.contentRange);
  const at = `chunk ${chunk.index} (bytes ${chunk.start}-${chunk.end})`;
  const detail = answer.text ? `: ${answer.text.slice(0, 200)}` : '';
  const make = (code: string, message: string) =>
    new TikTokUploadError(code, message, answer.status, chunk.index, held);
  if (answer.status === 416) {
    return make(
      'upload_range_mismatch',
      `the upload host holds ${held ?? 'an unknown number of'} bytes, not ${chunk.start}, at ${at}${detail}`,
    );
  }
  if (answer.status === 403) return make('upload_url_expired', `upload_url expired (valid 1 h) at ${at}${detail}`);
  if (answer.status === 404) return make('upload_not_found', `no upload task for this upload_url at ${at}${detail}`);
  if (answer.status === 400) return make('upload_rejected', `the upload host refused ${at}${detail}`);
  if (answer.status >= 500 || answer.status === 429) {
    return make('upload_server_error', `HTTP ${answer.status} at ${at}, retries exhausted${detail}`);
  }
  if (answer.status === 201) return make('upload_ended_early', `the upload host called the upload complete at ${at}`);
  if (answer.status === 206 && isLast) {
    return make('upload_incomplete', `the upload host still expects bytes after the last ${at} (holds ${held})`);
  }
  return make('upload_http_error', `HTTP ${answer.status} at ${at}${detail}`);
}

/** Bytes held, from `Content-Range: bytes 0-{last}/{total}` (last byte inclusive, as in HTTP ranges). */
export function uploadedBytesOf(contentRange: string | null): number | null {
  const match = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(contentRange?.trim() ?? '');
  return match ? Number(match[2]) + 1 : null;
}

function asUploadError(error: unknown, chunk: TikTokChunk): TikTokUploadError {
  if (error instanceof TikTokUploadError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new TikTokUploadError('network_error', `chunk ${chunk.index}: ${message}`, 0, chunk.index, null);
}

async function delay(attempt: number, options: TikTokUploadOptions): Promise<void> {
  const ms = (options.retryDelayMs ?? 1000) * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** One PUT of one chunk, its body streamed from the source; resolves with the host's answer. */
async function putChunk(
  url: URL,
  chunk: TikTokChunk,
  total: number,
  source: TikTokUploadSource,
  options: TikTokUploadOptions,
): Promise<PutAnswer> {
  const body = await source.open(chunk.start, chunk.end);
  return new Promise<PutAnswer>((resolve, reject) => {
    let answered = false;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, {
      method: 'PUT',
      headers: {
        'content-type': source.mimeType,
        'content-length': String(chunk.size),
        'content-range': `bytes ${chunk.start}-${chunk.end}/${total}`,
      },
      signal: options.signal,
      timeout: options.idleTimeoutMs ?? 60_000,
    });
    request.on('timeout', () => request.destroy(new Error('upload connection idle too long')));
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    request.on('response', (response: IncomingMessage) => {
      answered = true;
      readText(response).then(
        (text) => resolve({ status: response.statusCode ?? 0, contentRange: header(response, 'content-range'), text }),
        reject,
      );
    });
    // A host that answers before reading the whole body (403, 404) may reset the connection under the
    // upload; its answer is what counts then, so stream errors after it are ignored.
    pipeline(body, new ExactLength(chunk), request).catch((error: unknown) => {
      if (!answered) reject(error instanceof Error ? error : new Error(String(error)));
    });
  });
}

function header(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

async function readText(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const part of response) {
    if (text.length < 2000) text += String(part);
  }
  return text;
}

/** Passes the chunk's bytes through, failing (not retried) when the source yields more or fewer than planned. */
class ExactLength extends Transform {
  private seen = 0;

  constructor(private readonly chunk: TikTokChunk) {
    super();
  }

  override _transform(data: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += data.length;
    if (this.seen > this.chunk.size) return callback(this.mismatch('more'));
    callback(null, data);
  }

  override _flush(callback: TransformCallback): void {
    callback(this.seen === this.chunk.size ? null : this.mismatch('fewer'));
  }

  private mismatch(which: string): TikTokUploadError {
    const { index, start, end, size } = this.chunk;
    return new TikTokUploadError(
      'upload_source_mismatch',
      `the video source gave ${which} than the ${size} bytes of chunk ${index} (bytes ${start}-${end})`,
      0,
      index,
      null,
      'client',
    );
  }
}
