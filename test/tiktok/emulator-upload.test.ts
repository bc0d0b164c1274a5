import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  connectRaw,
  controlCall,
  pollStatus,
  startTikTokFixture,
  type TikTokFixture,
} from '../support/tiktok.js';
import { buildMp4, buildMp4OfSize } from '../support/video.js';

const MIB = 1024 * 1024;
const VIDEO = '/v2/post/publish/video/init/';
const INBOX = '/v2/post/publish/inbox/video/init/';

let f: TikTokFixture;
let url: string;
beforeAll(async () => {
  f = await startTikTokFixture({ rateLimits: { videoInit: 1000, inboxInit: 1000, status: 100_000 } });
  url = f.emulator.url;
});
afterAll(async () => {
  await f.emulator.stop();
});

/** Starts a Direct Post FILE_UPLOAD of `size` bytes in chunks of `chunk`; returns ids and the upload URL. */
async function initUpload(
  token: string,
  size: number,
  chunk = size,
  privacy = 'SELF_ONLY',
): Promise<{ publishId: string; uploadUrl: string }> {
  const answer = await apiCall(url, token, VIDEO, {
    post_info: { privacy_level: privacy, title: 'upload' },
    source_info: {
      source: 'FILE_UPLOAD',
      video_size: size,
      chunk_size: chunk,
      total_chunk_count: Math.floor(size / chunk),
    },
  });
  expect(answer.status).toBe(200);
  const data = answer.json.data as { publish_id: string; upload_url: string };
  return { publishId: data.publish_id, uploadUrl: data.upload_url };
}

function put(uploadUrl: string, bytes: Buffer, range: string, type = 'video/mp4'): Promise<Response> {
  return fetch(uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': type, 'content-range': range },
    body: new Uint8Array(bytes),
  });
}

/** Sends `file` in the chunks init's arithmetic gives; returns each answer's status and Content-Range. */
async function sendAll(uploadUrl: string, file: Buffer, chunk: number): Promise<[number, string | null][]> {
  const count = Math.floor(file.length / chunk) || 1;
  const answers: [number, string | null][] = [];
  for (let i = 0; i < count; i += 1) {
    const first = i * chunk;
    const end = i === count - 1 ? file.length : first + chunk;
    const response = await put(uploadUrl, file.subarray(first, end), `bytes ${first}-${end - 1}/${file.length}`);
    answers.push([response.status, response.headers.get('content-range')]);
  }
  return answers;
}

async function post(publishId: string): Promise<Record<string, unknown>> {
  return (await (await controlCall(url, 'GET', `/__control/posts/${publishId}`)).json()) as Record<string, unknown>;
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('chunked upload', () => {
  it('takes a 12 MiB video in two chunks: 206 with progress, then 201, and records its size and sha256', async () => {
    const { token } = await connectRaw(url);
    const file = buildMp4OfSize(12 * MIB, { width: 1080, height: 1920, durationSec: 15, fps: 30 });
    const { publishId, uploadUrl } = await initUpload(token, file.length, 5 * MIB);
    const first = await put(uploadUrl, file.subarray(0, 5 * MIB), `bytes 0-${5 * MIB - 1}/${file.length}`);
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-${5 * MIB - 1}/${file.length}`);
    const midway = await apiCall(url, token, '/v2/post/publish/status/fetch/', { publish_id: publishId });
    expect(midway.json.data).toEqual({
      status: 'PROCESSING_UPLOAD',
      publicaly_available_post_id: [],
      uploaded_bytes: 5 * MIB,
    });
    // The second and last chunk takes the remainder, 7 MiB, above chunk_size.
    const last = await put(uploadUrl, file.subarray(5 * MIB), `bytes ${5 * MIB}-${file.length - 1}/${file.length}`);
    expect(last.status).toBe(201);
    expect(last.headers.get('content-range')).toBe(`bytes 0-${file.length - 1}/${file.length}`);
    const done = await pollStatus(url, token, publishId);
    expect(done.data).toEqual({
      status: 'PUBLISH_COMPLETE',
      publicaly_available_post_id: [],
      uploaded_bytes: file.length,
    });
    expect(await post(publishId)).toMatchObject({
      status: 'PUBLISH_COMPLETE',
      media: [
        {
          url: null,
          bytes: file.length,
          sha256: sha(file),
          format: 'mp4',
          width: 1080,
          height: 1920,
          durationSec: 15,
          fps: 30,
        },
      ],
    });
  });

  it('uploads the worked example: 50,000,123 bytes in 5 chunks, the 5th 10,000,123 bytes', async () => {
    const { token } = await connectRaw(url);
    const file = buildMp4OfSize(50_000_123);
    const { publishId, uploadUrl } = await initUpload(token, file.length, 10_000_000, 'PUBLIC_TO_EVERYONE');
    const answers = await sendAll(uploadUrl, file, 10_000_000);
    expect(answers).toEqual([
      [206, 'bytes 0-9999999/50000123'],
      [206, 'bytes 0-19999999/50000123'],
      [206, 'bytes 0-29999999/50000123'],
      [206, 'bytes 0-39999999/50000123'],
      [201, 'bytes 0-50000122/50000123'],
    ]);
    const done = await pollStatus(url, token, publishId);
    expect(done.data.status).toBe('PUBLISH_COMPLETE');
    // Public and moderated: a 19-digit id, as a bare JSON number in the raw body.
    expect(done.text).toMatch(/"publicaly_available_post_id":\[7\d{18}\]/);
    expect((await post(publishId)).media).toEqual([expect.objectContaining({ bytes: 50_000_123, sha256: sha(file) })]);
  });

  it('answers 416 to chunks out of order, repeated or cut at the wrong place, and keeps the progress', async () => {
    const { token } = await connectRaw(url);
    const file = buildMp4OfSize(11 * MIB);
    const { publishId, uploadUrl } = await initUpload(token, file.length, 5 * MIB);
    const secondFirst = await put(
      uploadUrl,
      file.subarray(5 * MIB),
      `bytes ${5 * MIB}-${file.length - 1}/${file.length}`,
    );
    expect(secondFirst.status).toBe(416);
    const short = await put(uploadUrl, file.subarray(0, 4 * MIB), `bytes 0-${4 * MIB - 1}/${file.length}`);
    expect(short.status).toBe(416);
    expect((await put(uploadUrl, file.subarray(0, 5 * MIB), `bytes 0-${5 * MIB - 1}/${file.length}`)).status).toBe(206);
    const again = await put(uploadUrl, file.subarray(0, 5 * MIB), `bytes 0-${5 * MIB - 1}/${file.length}`);
    expect(again.status).toBe(416);
    expect(again.headers.get('content-range')).toBe(`bytes 0-${5 * MIB - 1}/${file.length}`);
    expect(
      (await put(uploadUrl, file.subarray(5 * MIB), `bytes ${5 * MIB}-${file.length - 1}/${file.length}`)).status,
    ).toBe(201);
    expect(
      (await put(uploadUrl, file.subarray(5 * MIB), `bytes ${5 * MIB}-${file.length - 1}/${file.length}`)).status,
    ).toBe(416);
    expect((await post(publishId)).media).toEqual([expect.objectContaining({ sha256: sha(file) })]);
  });

  it('answers 400 to bad headers, 404 to unknown uploads and 403 once the URL expired', async () => {
    const { token } = await connectRaw(url);
    const file = buildMp4({ payloadBytes: 2000 });
    const { uploadUrl } = await initUpload(token, file.length);
    const whole = `bytes 0-${file.length - 1}/${file.length}`;
    expect((await put(uploadUrl, file, whole, 'video/x-msvideo')).status).toBe(400);
    expect((await put(uploadUrl, file, 'bytes=0-10')).status).toBe(400);
    expect((await put(uploadUrl, file, `bytes 0-${file.length}/${file.length + 1}`)).status).toBe(400);
    const unknown = new URL(uploadUrl);
    unknown.searchParams.set('upload_id', '1');
    expect((await put(unknown.toString(), file, whole)).status).toBe(404);
    const wrongToken = new URL(uploadUrl);
    wrongToken.searchParams.set('upload_token', 'nope');
    expect((await put(wrongToken.toString(), file, whole)).status).toBe(404);
    expect((await put(uploadUrl, file, whole, 'video/quicktime')).status).toBe(201);

    const g = await startTikTokFixture({ uploadUrlTtlSec: 0.2 });
    try {
      const user = await connectRaw(g.emulator.url);
      const answer = await apiCall(g.emulator.url, user.token, VIDEO, {
        post_info: { privacy_level: 'SELF_ONLY' },
        source_info: { source: 'FILE_UPLOAD', video_size: file.length, chunk_size: file.length, total_chunk_count: 1 },
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const expired = await put(String(answer.json.data!.upload_url), file, whole);
      expect(expired.status).toBe(403);
    } finally {
      await g.emulator.stop();
    }
  });

  it('does not store a chunk answered with an injected 5xx; the retried chunk is accepted', async () => {
    const { openId, token } = await connectRaw(url);
    const file = buildMp4OfSize(10 * MIB + 77);
    const { publishId, uploadUrl } = await initUpload(token, file.length, 5 * MIB);
    await controlCall(url, 'POST', `/__control/accounts/${openId}/failures`, {
      endpoint: 'upload',
      status: 503,
      code: 'internal_error',
    });
    const range = `bytes 0-${5 * MIB - 1}/${file.length}`;
    const failed = await put(uploadUrl, file.subarray(0, 5 * MIB), range);
    expect(failed.status).toBe(503);
    expect((await post(publishId)).uploadedBytes).toBe(0);
    expect((await put(uploadUrl, file.subarray(0, 5 * MIB), range)).status).toBe(206);
    const rest = `bytes ${5 * MIB}-${file.length - 1}/${file.length}`;
    expect((await put(uploadUrl, file.subarray(5 * MIB), rest)).status).toBe(201);
    expect((await post(publishId)).media).toEqual([expect.objectContaining({ bytes: file.length, sha256: sha(file) })]);
  });
});

describe('video checks after the last chunk', () => {
  async function uploadOne(file: Buffer, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const { token } = await connectRaw(url, fields);
    const { publishId, uploadUrl } = await initUpload(token, file.length);
    expect((await put(uploadUrl, file, `bytes 0-${file.length - 1}/${file.length}`)).status).toBe(201);
    return (await pollStatus(url, token, publishId)).data;
  }

  it.each([
    ['frame_rate_check_failed', buildMp4({ fps: 15 })],
    ['frame_rate_check_failed', buildMp4({ fps: 120 })],
    ['picture_size_check_failed', buildMp4({ width: 320, height: 640 })],
    ['picture_size_check_failed', buildMp4({ width: 1080, height: 5000 })],
    ['duration_check_failed', buildMp4({ durationSec: 601 })],
    ['file_format_check_failed', randomBytes(3000)],
    ['file_format_check_failed', buildMp4().subarray(0, 40)],
  ])('fails with %s', async (reason, file) => {
    expect(await uploadOne(file)).toMatchObject({ status: 'FAILED', fail_reason: reason });
  });

  it("fails a video longer than the creator's max_video_post_duration_sec", async () => {
    expect(await uploadOne(buildMp4({ durationSec: 61 }), { maxVideoPostDurationSec: 60 })).toMatchObject({
      status: 'FAILED',
      fail_reason: 'duration_check_failed',
    });
    expect((await uploadOne(buildMp4({ durationSec: 60 }), { maxVideoPostDurationSec: 60 })).status).toBe(
      'PUBLISH_COMPLETE',
    );
  });

  it('accepts the edges: 23.976 and 60 fps, 360 and 4096 px, QuickTime and WebM', async () => {
    for (const file of [
      buildMp4({ fps: 23.976 }),
      buildMp4({ fps: 60, width: 360, height: 4096 }),
      buildMp4({ brand: 'qt  ' }),
      Buffer.concat([
        Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84]),
        Buffer.from('webm'),
        randomBytes(500),
      ]),
    ]) {
      expect((await uploadOne(file)).status).toBe('PUBLISH_COMPLETE');
    }
  });

  it('ends an inbox upload in SEND_TO_USER_INBOX', async () => {
    const { token } = await connectRaw(url);
    const file = buildMp4();
    const answer = await apiCall(url, token, INBOX, {
      source_info: { source: 'FILE_UPLOAD', video_size: file.length, chunk_size: file.length, total_chunk_count: 1 },
    });
    const data = answer.json.data as { publish_id: string; upload_url: string };
    expect((await put(data.upload_url, file, `bytes 0-${file.length - 1}/${file.length}`)).status).toBe(201);
    expect((await pollStatus(url, token, data.publish_id)).data).toEqual({
      status: 'SEND_TO_USER_INBOX',
      publicaly_available_post_id: [],
      uploaded_bytes: file.length,
    });
  });
});
