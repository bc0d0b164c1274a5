import type { MediaRefusal } from './graph-error.js';
import { readVideoHead, type VideoHeader } from './mp4.js';
import type { InstagramEmulatorOptions } from './options.js';
import type { FetchedMedia } from './state.js';

/** What a video that passed its checks leaves. */
export type FetchedVideo = Extract<FetchedMedia, { kind: 'video' }>;

/** The largest head of a video kept while looking for its moov (real ones are a few MB). */
const MAX_VIDEO_HEAD_BYTES = 64 * 1024 * 1024;

function unsupported(why: string): MediaRefusal {
  return { code: 352, subcode: 2207026, message: `The video format is not supported: ${why}.` };
}

/**
 * Reads a video as it arrives (fetched from video_url or uploaded) and checks what its header tells (contract
 * 2.4): MP4/MOV with moov before mdat, at most 300 MB, 3 s to 15 min, at most 1920 columns, aspect 0.01:1 to
 * 10:1. Every refusal is 352 / 2207026, which the container's status carries. Only the head is kept.
 */
export async function checkVideoStream(
  stream: AsyncIterable<Uint8Array>,
  options: InstagramEmulatorOptions,
): Promise<FetchedVideo | MediaRefusal> {
  const chunks: Buffer[] = [];
  let head = Buffer.alloc(0);
  let total = 0;
  let header: VideoHeader | undefined;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > options.maxVideoBytes) return unsupported(`it is larger than ${options.maxVideoBytes} bytes`);
    if (header) continue;
    chunks.push(Buffer.from(chunk));
    head = Buffer.concat(chunks);
    const reading = readVideoHead(head, false);
    if ('refused' in reading) return unsupported(reading.refused);
    if ('ok' in reading) header = reading.ok;
    else if (head.length > MAX_VIDEO_HEAD_BYTES) return unsupported('no moov box near the front');
  }
  if (!header) {
    const reading = readVideoHead(head, true);
    if (!('ok' in reading)) return unsupported('refused' in reading ? reading.refused : 'the file is cut');
    header = reading.ok;
  }
  const { width, height, durationSec } = header;
  if (durationSec < options.minVideoSec || durationSec > options.maxVideoSec) {
    return unsupported(
      `its duration ${durationSec.toFixed(1)} s is outside ${options.minVideoSec}-${options.maxVideoSec} s`,
    );
  }
  if (width > options.maxVideoWidth)
    return unsupported(`it is ${width} pixels wide (at most ${options.maxVideoWidth})`);
  const ratio = width / height;
  if (!(ratio >= 0.01 && ratio <= 10)) return unsupported(`its aspect ratio ${ratio.toFixed(4)} is outside 0.01-10`);
  return { kind: 'video', bytes: total, width, height, durationSec };
}

/** Records a checked video on its container: ERROR with the refusal's subcode, or processing from now. */
export function settleVideo(
  container: {
    params: Record<string, string>;
    errorSubcode: number | null;
    fetched: FetchedMedia | null;
    readyAt: number | null;
  },
  result: FetchedVideo | MediaRefusal,
  now: number,
  options: InstagramEmulatorOptions,
): void {
  if (!('kind' in result)) {
    container.errorSubcode = result.subcode ?? 2207001;
    return;
  }
  if (Number(container.params.thumb_offset ?? 0) >= result.durationSec * 1000) {
    container.errorSubcode = 2207057;
    return;
  }
  container.fetched = result;
  container.readyAt = now + options.videoProcessingMs;
}
