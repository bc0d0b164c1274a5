import type { EmulatorOptions } from './options.js';

/** A synchronous init refusal: HTTP status, TikTok code and message. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** A validated source_info. */
export type VideoSource =
  | { source: 'FILE_UPLOAD'; videoSize: number; chunkSize: number; totalChunkCount: number }
  | { source: 'PULL_FROM_URL'; url: string };

type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** 400 with the configured spelling of `invalid_params`. */
export function invalid(options: EmulatorOptions, message: string): Refusal {
  return { status: 400, code: options.invalidParamsCode, message };
}

/** Type errors in the optional post_info fields both posting kinds share. */
export function checkPostInfoTypes(options: EmulatorOptions, info: Obj, titleMax: number): Refusal | null {
  for (const flag of [
    'disable_duet',
    'disable_stitch',
    'disable_comment',
    'brand_content_toggle',
    'brand_organic_toggle',
    'is_aigc',
    'auto_add_music',
  ]) {
    if (info[flag] !== undefined && typeof info[flag] !== 'boolean')
      return invalid(options, `${flag} must be a boolean`);
  }
  if (info.video_cover_timestamp_ms !== undefined && !isCount(info.video_cover_timestamp_ms)) {
    return invalid(options, 'video_cover_timestamp_ms must be a non-negative integer');
  }
  for (const [field, max] of [
    ['title', titleMax],
    ['description', 4000],
  ] as const) {
    const text = info[field];
    if (text === undefined) continue;
    if (typeof text !== 'string') return invalid(options, `${field} must be a string`);
    // String length is in UTF-16 code units, TikTok's unit.
    if (text.length > max) return invalid(options, `${field} is longer than ${max} UTF-16 code units`);
  }
  return null;
}

/** privacy_level present and among the creator's options, else 403 `privacy_level_option_mismatch`. */
export function checkPrivacy(info: Obj, privacyLevelOptions: string[]): Refusal | null {
  const level = info.privacy_level;
  if (typeof level === 'string' && privacyLevelOptions.includes(level)) return null;
  return {
    status: 403,
    code: 'privacy_level_option_mismatch',
    message: 'privacy_level is missing or not one of the privacy_level_options of the creator.',
  };
}

/** source_info of a video init: FILE_UPLOAD with the chunk arithmetic of contract 4.3, or PULL_FROM_URL. */
export function checkVideoSource(options: EmulatorOptions, sourceInfo: unknown): VideoSource | Refusal {
  if (!isObject(sourceInfo)) return invalid(options, 'source_info is required');
  if (sourceInfo.source === 'PULL_FROM_URL') {
    const url = sourceInfo.video_url;
    if (typeof url !== 'string' || !URL.canParse(url)) return invalid(options, 'video_url must be a URL');
    return { source: 'PULL_FROM_URL', url };
  }
  if (sourceInfo.source !== 'FILE_UPLOAD') return invalid(options, 'source must be FILE_UPLOAD or PULL_FROM_URL');
  const { video_size: size, chunk_size: chunk, total_chunk_count: count } = sourceInfo;
  if (!isCount(size) || !isCount(chunk) || !isCount(count) || size === 0 || chunk === 0) {
    return invalid(options, 'video_size, chunk_size and total_chunk_count must be positive integers');
  }
  const problem = chunkProblem(options, size, chunk, count);
  if (problem) return invalid(options, problem);
  return { source: 'FILE_UPLOAD', videoSize: size, chunkSize: chunk, totalChunkCount: count };
}

/** What breaks the chunk rules of contract 4.3, or null. */
export function chunkProblem(options: EmulatorOptions, size: number, chunk: number, count: number): string | null {
  const rules = options.chunkRules;
  if (size > options.maxVideoBytes) return `video_size is above ${options.maxVideoBytes} bytes`;
  if (size < rules.minBytes) {
    return chunk === size && count === 1
      ? null
      : 'a video under the minimum chunk size goes up as one chunk of its size';
  }
  if (chunk < rules.minBytes || chunk > rules.maxBytes) {
    return `chunk_size must be between ${rules.minBytes} and ${rules.maxBytes} bytes`;
  }
  if (count !== Math.floor(size / chunk)) return 'total_chunk_count must be floor(video_size / chunk_size)';
  if (count < 1 || count > rules.maxCount) return `total_chunk_count must be between 1 and ${rules.maxCount}`;
  if (size > rules.maxBytes && count < 2) return `a video above ${rules.maxBytes} bytes must be split into chunks`;
  if (size - (count - 1) * chunk > rules.lastMaxBytes) return `the last chunk is above ${rules.lastMaxBytes} bytes`;
  return null;
}

/** The photo source of content/init: PULL_FROM_URL, 1–35 image URLs and a cover index in range. */
export function checkPhotoSource(options: EmulatorOptions, sourceInfo: unknown): { urls: string[] } | Refusal {
  if (!isObject(sourceInfo)) return invalid(options, 'source_info is required');
  if (sourceInfo.source !== 'PULL_FROM_URL') return invalid(options, 'photo source must be PULL_FROM_URL');
  const images = sourceInfo.photo_images;
  if (!Array.isArray(images) || images.length < 1 || images.length > 35) {
    return invalid(options, 'photo_images must list 1 to 35 URLs');
  }
  if (!images.every((u): u is string => typeof u === 'string' && URL.canParse(u))) {
    return invalid(options, 'every photo_images entry must be a URL');
  }
  const cover = sourceInfo.photo_cover_index;
  if (!isCount(cover) || cover >= images.length) return invalid(options, 'photo_cover_index must index photo_images');
  return { urls: images };
}

/**
 * PULL_FROM_URL ownership (contract 4.7): https (http too with allowHttpPullUrls) and on a verified property, a
 * bare domain covering itself and its subdomains, or a `scheme://host/path` prefix matched exactly.
 */
export function checkPullUrl(options: EmulatorOptions, raw: string): Refusal | null {
  const url = new URL(raw);
  const schemeOk = url.protocol === 'https:' || (options.allowHttpPullUrls && url.protocol === 'http:');
  const verified = options.verifiedUrlPrefixes.some((entry) =>
    entry.includes('://') ? raw.startsWith(entry) : url.hostname === entry || url.hostname.endsWith(`.${entry}`),
  );
  if (schemeOk && verified) return null;
  return {
    status: 403,
    code: 'url_ownership_unverified',
    message: 'The URL is not https or not on a verified domain or URL prefix of this app.',
  };
}

export function isRefusal(value: unknown): value is Refusal {
  return isObject(value) && typeof value.status === 'number' && typeof value.code === 'string';
}
