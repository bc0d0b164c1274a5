import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CHUNK_BYTES,
  MAX_CHUNK_BYTES,
  MAX_CHUNKS,
  MIB,
  MIN_CHUNK_BYTES,
  planChunks,
  type TikTokChunkPlan,
} from '../../src/core/providers/tiktok/chunk-plan.js';
import { initCreatedNothing, TikTokApiError, TikTokInitError } from '../../src/core/providers/tiktok/errors.js';
import { parseJsonKeepingBigInts } from '../../src/core/providers/tiktok/json.js';
import { readPublishState } from '../../src/core/providers/tiktok/status.js';
import { uploadedBytesOf } from '../../src/core/providers/tiktok/upload.js';

/** The plan's invariants per contract 4.3, whatever the size. */
function expectValidPlan(plan: TikTokChunkPlan): void {
  expect(plan.totalChunkCount).toBe(Math.floor(plan.videoSize / plan.chunkSize));
  expect(plan.chunks).toHaveLength(plan.totalChunkCount);
  expect(plan.totalChunkCount).toBeGreaterThanOrEqual(1);
  expect(plan.totalChunkCount).toBeLessThanOrEqual(1000);
  let next = 0;
  for (const chunk of plan.chunks) {
    expect(chunk.start).toBe(next);
    expect(chunk.size).toBe(chunk.end - chunk.start + 1);
    const isLast = chunk.index === plan.totalChunkCount - 1;
    if (!isLast) expect(chunk.size).toBe(plan.chunkSize);
    if (plan.videoSize >= 5 * MIB) {
      expect(chunk.size).toBeGreaterThanOrEqual(5 * MIB);
      expect(chunk.size).toBeLessThanOrEqual(isLast ? 128 * MIB : 64 * MIB);
    }
    next = chunk.end + 1;
  }
  expect(next).toBe(plan.videoSize);
  if (plan.videoSize > 64 * MIB) expect(plan.totalChunkCount).toBeGreaterThanOrEqual(2);
}

function refusal(run: () => unknown): TikTokApiError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TikTokApiError);
    return error as TikTokApiError;
  }
  throw new Error('expected a refusal');
}

describe('chunk planning (contract 4.3)', () => {
  it('reads MB as MiB', () => {
    expect([MIN_CHUNK_BYTES, MAX_CHUNK_BYTES, DEFAULT_CHUNK_BYTES]).toEqual([5_242_880, 67_108_864, 10_485_760]);
  });

  it('plans the worked example: 50,000,123 bytes at 10,000,000 → 5 chunks, the 5th 10,000,123 bytes', () => {
    const plan = planChunks(50_000_123, 10_000_000);
    expect(plan).toMatchObject({ videoSize: 50_000_123, chunkSize: 10_000_000, totalChunkCount: 5 });
    expect(plan.chunks[3]).toEqual({ index: 3, start: 30_000_000, end: 39_999_999, size: 10_000_000 });
    expect(plan.chunks[4]).toEqual({ index: 4, start: 40_000_000, end: 50_000_122, size: 10_000_123 });
    expectValidPlan(plan);
  });

  it('sends a file under 5 MiB whole, with chunk_size = video_size', () => {
    for (const size of [1, 1000, 5 * MIB - 1]) {
      const plan = planChunks(size);
      expect(plan).toMatchObject({ videoSize: size, chunkSize: size, totalChunkCount: 1 });
      expect(plan.chunks).toEqual([{ index: 0, start: 0, end: size - 1, size }]);
    }
  });

  it('sends a file smaller than the chunk size as one chunk of its own size', () => {
    expect(planChunks(5 * MIB)).toMatchObject({ chunkSize: 5 * MIB, totalChunkCount: 1 });
    expect(planChunks(64 * MIB, 64 * MIB)).toMatchObject({ chunkSize: 64 * MIB, totalChunkCount: 1 });
  });

  it('lets the last chunk take the remainder, up to just under two chunks', () => {
    const plan = planChunks(2 * DEFAULT_CHUNK_BYTES - 1);
    expect(plan.totalChunkCount).toBe(1);
    expect(plan.chunks[0]?.size).toBe(2 * DEFAULT_CHUNK_BYTES - 1);
    expect(planChunks(2 * DEFAULT_CHUNK_BYTES).totalChunkCount).toBe(2);
  });

  it('splits a file over 64 MiB even when one chunk plus remainder would do', () => {
    const plan = planChunks(64 * MIB + 1, 64 * MIB);
    expect(plan.totalChunkCount).toBe(2);
    expect(plan.chunkSize).toBe(32 * MIB);
    expectValidPlan(plan);
  });

  it('grows the chunk so that no file needs more than 1000 chunks', () => {
    const size = 6 * 1024 * MIB;
    expect(Math.floor(size / MIN_CHUNK_BYTES)).toBeGreaterThan(MAX_CHUNKS);
    const plan = planChunks(size, MIN_CHUNK_BYTES);
    expect(plan.totalChunkCount).toBe(1000);
    expectValidPlan(plan);
    expect(planChunks(4 * 1024 * MIB).totalChunkCount).toBe(409);
  });

  it('keeps the invariants across sizes and chunk sizes', () => {
    const sizes = [5 * MIB, 5 * MIB + 1, 10 * MIB - 1, 10 * MIB, 63 * MIB + 7, 129 * MIB, 999_999_999, 4_294_967_296];
    for (const size of sizes) {
      for (const chunk of [MIN_CHUNK_BYTES, DEFAULT_CHUNK_BYTES, 33 * MIB + 3, MAX_CHUNK_BYTES]) {
        expectValidPlan(planChunks(size, chunk));
      }
    }
    // The largest plannable file: 1000 chunks of 64 MiB plus a remainder under one chunk.
    expectValidPlan(planChunks(1001 * MAX_CHUNK_BYTES - 1, MAX_CHUNK_BYTES));
  });

  it('refuses sizes it cannot plan, before anything is sent', () => {
    for (const size of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
      expect(refusal(() => planChunks(size))).toMatchObject({
        source: 'client',
        code: 'invalid_request',
        tiktokCode: 'refused_by_client',
      });
    }
    expect(refusal(() => planChunks(1001 * MAX_CHUNK_BYTES)).message).toMatch(/cannot be split into at most 1000/);
    expect(refusal(() => planChunks(50 * MIB, MIN_CHUNK_BYTES - 1)).message).toMatch(/chunk size must be between/);
    expect(refusal(() => planChunks(50 * MIB, MAX_CHUNK_BYTES + 1)).message).toMatch(/chunk size must be between/);
  });
});

describe('publish status parsing', () => {
  it('keeps 19-digit post ids exact, character for character, from the raw body', () => {
    const text =
      '{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[7678907398077074696,9223372036854775807,42],' +
      '"uploaded_bytes":10000},"error":{"code":"ok","message":"","log_id":"x"}}';
    const body = parseJsonKeepingBigInts(text) as { data: unknown };
    expect(readPublishState(body.data)).toEqual({
      status: 'PUBLISH_COMPLETE',
      failReason: null,
      postIds: ['7678907398077074696', '9223372036854775807', '42'],
      uploadedBytes: 10000,
      downloadedBytes: null,
    });
  });

  it('reads the documented FAILED example and tolerates an absent id list', () => {
    const failed = parseJsonKeepingBigInts(
      '{"status":"FAILED","fail_reason":"picture_size_check_failed","publicaly_available_post_id":[],"uploaded_bytes":10000}',
    );
    expect(readPublishState(failed)).toMatchObject({ failReason: 'picture_size_check_failed', postIds: [] });
    expect(readPublishState({ status: 'PROCESSING_DOWNLOAD', downloaded_bytes: 5 })).toEqual({
      status: 'PROCESSING_DOWNLOAD',
      failReason: null,
      postIds: [],
      uploadedBytes: null,
      downloadedBytes: 5,
    });
  });

  it('refuses an id that is not a whole number, rather than keep a rounded one', () => {
    const error = refusal(() => readPublishState({ status: 'PUBLISH_COMPLETE', publicaly_available_post_id: [1.5] }));
    expect(error.tiktokCode).toBe('unexpected_response');
    expect(() => readPublishState({ status: 'PUBLISH_COMPLETE', publicaly_available_post_id: ['7e3'] })).toThrow();
  });

  it('reads the upload host progress header with the last byte inclusive', () => {
    expect(uploadedBytesOf('bytes 0-10485759/50000123')).toBe(10_485_760);
    expect(uploadedBytesOf('bytes */50000123')).toBeNull();
    expect(uploadedBytesOf(null)).toBeNull();
  });
});

describe('init failure classification (createdNothing)', () => {
  const cases: [string, number, string, boolean][] = [
    ['refused_by_client', 0, 'client', true],
    ['rate_limit_exceeded', 429, 'api', true],
    ['http_error', 429, 'api', true],
    ['invalid_param', 400, 'api', true],
    ['invalid_params', 400, 'api', true],
    ['app_version_check_failed', 400, 'api', true],
    ['access_token_invalid', 401, 'api', true],
    ['scope_not_authorized', 401, 'api', true],
    ['spam_risk_too_many_posts', 403, 'api', true],
    ['spam_risk_user_banned_from_posting', 403, 'api', true],
    ['reached_active_user_cap', 403, 'api', true],
    ['unaudited_client_can_only_post_to_private_accounts', 403, 'api', true],
    ['url_ownership_unverified', 403, 'api', true],
    ['privacy_level_option_mismatch', 403, 'api', true],
    ['spam_risk_too_many_pending_share', 403, 'api', true],
    ['network_error', 0, 'api', false],
    ['internal_error', 500, 'api', false],
    ['internal_error', 503, 'api', false],
    ['unexpected_response', 200, 'api', false],
    ['http_error', 404, 'api', false],
    ['spam_risk_too_many_posts', 200, 'api', false],
    ['invalid_params', 500, 'api', false],
    ['scope_permission_missed', 400, 'api', false],
  ];
  it.each(cases)('%s with HTTP %i (%s) → createdNothing %s', (code, status, source, expected) => {
    const error = new TikTokApiError(code, 'm', status, source as 'api' | 'client');
    expect(initCreatedNothing(error)).toBe(expected);
    const init = new TikTokInitError(error);
    expect(init).toBeInstanceOf(TikTokApiError);
    expect(init).toMatchObject({
      createdNothing: expected,
      tiktokCode: code,
      httpStatus: status,
      message: error.message,
    });
  });
});
