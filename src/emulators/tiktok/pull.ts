import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { PublishEngine } from './engine.js';
import { checkPhoto, checkVideo } from './media-checks.js';
import { appendStream, discard, sha256, TooLargeError } from './media-files.js';
import type { EmulatorOptions } from './options.js';
import { isProcessing, type FailReason, type Publish } from './publish-model.js';
import type { EmulatorState } from './state.js';

/**
 * Runs a PULL_FROM_URL download in the background (contract 4.7): each URL is fetched in turn without following
 * redirects, streamed to disk while `downloaded_bytes` grows, then checked like an upload. A 3xx, an error
 * status, a network error, or the whole download outlasting `pullTimeoutMs` ends it FAILED `*_pull_failed`;
 * cancel and revoke abort it through `state.inflight`.
 */
export function startPull(
  state: EmulatorState,
  engine: PublishEngine,
  options: EmulatorOptions,
  publish: Publish,
): void {
  const controller = new AbortController();
  state.inflight.set(publish.publishId, controller);
  const signal = controller.signal;
  // A plain timer, not AbortSignal.timeout inside AbortSignal.any: Node may collect that pair and never abort.
  const timeout = setTimeout(() => controller.abort(new Error('pull timed out')), options.pullTimeoutMs);
  const pullFailed: FailReason = publish.kind === 'photo' ? 'photo_pull_failed' : 'video_pull_failed';
  const mediaDir = options.mediaDir ?? '';
  void (async () => {
    const files: string[] = [];
    try {
      // An injected stall: no byte ever arrives, as from a server that accepts and then goes quiet.
      if (publish.directive.stallPull) await once(signal, 'abort');
      signal.throwIfAborted();
      const limit = publish.kind === 'photo' ? options.maxPhotoBytes : options.maxVideoBytes;
      for (const record of publish.media) {
        const file = path.join(mediaDir, `${randomBytes(12).toString('hex')}.bin`);
        files.push(file);
        const response = await fetch(pullAddress(record.url ?? '', options), { redirect: 'manual', signal });
        if (response.status < 200 || response.status > 299 || !response.body) {
          throw new Error(`pull answered ${response.status}`);
        }
        const hash = sha256();
        const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
        record.bytes = await appendStream(body, file, 0, hash, limit, (count) => {
          publish.downloadedBytes += count;
        });
        record.sha256 = hash.digest('hex');
      }
      if (!isProcessing(publish)) return;
      let failure: FailReason | null = null;
      for (const [i, record] of publish.media.entries()) {
        failure =
          publish.kind === 'photo'
            ? await checkPhoto(files[i]!, record)
            : await checkVideo(files[i]!, record, state.accounts.get(publish.openId)?.maxVideoPostDurationSec ?? 600);
        if (failure) break;
      }
      engine.bytesIn(publish, failure);
    } catch (error) {
      if (!isProcessing(publish)) return;
      // Oversize bytes: a photo's "picture size" check, a video's format check (TikTok names no size reason).
      const reason =
        error instanceof TooLargeError
          ? publish.kind === 'photo'
            ? 'picture_size_check_failed'
            : 'file_format_check_failed'
          : pullFailed;
      state.settle(publish, 'FAILED', reason);
    } finally {
      clearTimeout(timeout);
      for (const file of files) await discard(file);
    }
  })();
}

/** Where a pull URL is fetched: the URL itself, or its rest at `pullVia.to`. */
function pullAddress(url: string, { pullVia }: EmulatorOptions): string {
  return pullVia && url.startsWith(pullVia.from) ? `${pullVia.to}${url.slice(pullVia.from.length)}` : url;
}
