import type { MediaRefusal } from './graph-error.js';
import { imageFormatOf, jpegSize } from './jpeg.js';
import { checkVideoStream, type FetchedVideo } from './video-check.js';
import type { InstagramEmulatorOptions } from './options.js';
import type { FetchedMedia } from './state.js';

type Download = { body: ReadableStream<Uint8Array>; declared: number } | MediaRefusal;

/** GETs a media URL as Meta's fetcher does (contract 2.1); unreachable or non-2xx is 9004 / 2207052. */
async function download(url: string, signal: AbortSignal, range: boolean): Promise<Download> {
  const unreachable = { code: 9004, subcode: 2207052, message: `The media could not be fetched from this uri: ${url}` };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return unreachable;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return unreachable;
  const response = await fetch(parsed, { signal, headers: range ? { range: 'bytes=0-' } : {} });
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    return unreachable;
  }
  return { body: response.body, declared: Number(response.headers.get('content-length') ?? -1) };
}

export function isRefusal(value: unknown): value is MediaRefusal {
  return typeof value === 'object' && value !== null && 'code' in value;
}

/** Runs a fetch under the fetch deadline: slow is -2 / 2207003, a network failure 9004 / 2207052. */
async function withDeadline<T>(
  url: string,
  options: InstagramEmulatorOptions,
  work: (signal: AbortSignal) => Promise<T | MediaRefusal>,
): Promise<T | MediaRefusal> {
  const signal = AbortSignal.timeout(options.fetchTimeoutMs);
  try {
    return await work(signal);
  } catch {
    if (signal.aborted) return { code: -2, subcode: 2207003, message: 'It takes too long to download the media.' };
    return { code: 9004, subcode: 2207052, message: `The media could not be fetched from this uri: ${url}` };
  }
}

/**
 * Fetches and checks an image_url (contract 2.4): JPEG only (36001 / 2207005), below 8 MiB (36000 / 2207004),
 * width 320-1440 (code 100: Meta documents no code; see the decisions), aspect ratio 4:5 to 1.91:1 (36003 / 2207009).
 */
export async function fetchImage(url: string, options: InstagramEmulatorOptions): Promise<FetchedMedia | MediaRefusal> {
  const tooLarge = {
    code: 36000,
    subcode: 2207004,
    message: 'The image is too large to download. It should be less than 8 MiB.',
  };
  const got = await withDeadline(url, options, async (signal) => {
    const answer = await download(url, signal, false);
    if (isRefusal(answer)) return answer;
    if (answer.declared > options.maxImageBytes) {
      await answer.body.cancel();
      return tooLarge;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of answer.body) {
      total += chunk.length;
      if (total > options.maxImageBytes) return tooLarge;
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks);
  });
  if (isRefusal(got)) return got;
  const format = imageFormatOf(got);
  if (format !== 'jpeg') {
    return {
      code: 36001,
      subcode: 2207005,
      message: `The image format ${format} is not supported. Supported formats are: jpeg.`,
    };
  }
  const size = jpegSize(got);
  if (!size) return { code: 9004, subcode: 2207052, message: 'Only photo or video can be accepted as media type.' };
  if (size.width < options.minImageWidth || size.width > options.maxImageWidth) {
    return {
      code: 100,
      message: `(#100) The image width ${size.width} is outside ${options.minImageWidth}-${options.maxImageWidth} pixels.`,
    };
  }
  const ratio = size.width / size.height;
  if (ratio < options.minAspect || ratio > options.maxAspect) {
    return {
      code: 36003,
      subcode: 2207009,
      message: `The submitted image with aspect ratio ${ratio.toFixed(4)} cannot be published. Please submit an image with a valid aspect ratio.`,
    };
  }
  return { kind: 'image', bytes: got.length, ...size, data: got };
}

/**
 * Fetches and checks a video_url (contract 2.4); see `checkVideoStream` for what is checked. A fetch that fails
 * answers like an image's (9004 / 2207052, -2 / 2207003).
 */
export async function fetchVideo(url: string, options: InstagramEmulatorOptions): Promise<FetchedVideo | MediaRefusal> {
  return withDeadline(url, options, async (signal) => {
    const answer = await download(url, signal, true);
    if (isRefusal(answer)) return answer;
    return checkVideoStream(answer.body, options);
  });
}
