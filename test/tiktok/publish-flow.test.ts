import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIB } from '../../src/core/providers/tiktok/chunk-plan.js';
import { TikTokApiError, TikTokUploadError } from '../../src/core/providers/tiktok/errors.js';
import { buildAuthorizeUrl, exchangeCode } from '../../src/core/providers/tiktok/oauth.js';
import { initInboxVideo, initPhotoPost, initVideoPost } from '../../src/core/providers/tiktok/publish.js';
import { TokenRateLimiter } from '../../src/core/providers/tiktok/rate-limiter.js';
import {
  cancelPublish,
  fetchPublishStatus,
  isFinalPublishStatus,
  type TikTokPublishState,
} from '../../src/core/providers/tiktok/status.js';
import { uploadVideo, type TikTokUploadSource } from '../../src/core/providers/tiktok/upload.js';
import { answerConsent, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { buildMp4OfSize } from '../support/video.js';

// The whole publishing flow against the emulator: FILE_UPLOAD of a multi-chunk file streamed from
// disk, PULL_FROM_URL from a local server, status through to PUBLISH_COMPLETE with exact post ids,
// drafts, moderation delay, asynchronous failure and cancel.

const BIG_SIZE = 16 * MIB + 123; // three chunks of 5 MiB: 5, 5 and 6 MiB + 123 bytes
const CHUNK = 5 * MIB;

let dir: string;
let bigFile: string;
let bigSha: string;
let smallFile: string;
let jpeg: Buffer;
let media: Server;
let mediaUrl: string;
let f: TikTokFixture;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-publish-'));
  bigFile = path.join(dir, 'big.mp4');
  const big = buildMp4OfSize(BIG_SIZE);
  bigSha = createHash('sha256').update(big).digest('hex');
  await writeFile(bigFile, big);
  smallFile = path.join(dir, 'small.mp4');
  await writeFile(smallFile, buildMp4OfSize(300_000));
  jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c33' } })
    .jpeg()
    .toBuffer();
  // The media server TikTok pulls from: the big video, and a photo.
  media = createServer((request, response) => {
    if (request.url === '/big.mp4') {
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': BIG_SIZE });
      createReadStream(bigFile).pipe(response);
    } else if (request.url === '/photo.jpg') {
      response.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
  mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
  f = await startTikTokFixture(
    { allowHttpPullUrls: true, verifiedUrlPrefixes: [`${mediaUrl}/`], rateLimits: { status: 10_000 } },
    // Polling here is fast; a one-second window keeps the client's limiter from waiting a minute.
    { limiter: new TokenRateLimiter(1_000) },
  );
});
afterAll(async () => {
  await f.emulator.stop();
  media.closeAllConnections();
  await new Promise((resolve) => media.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function connect(fields: Record<string, unknown> = {}, fixture = f): Promise<{ openId: string; token: string }> {
  const account = await fixture.createAccount(fields);
  const callback = await answerConsent(buildAuthorizeUrl(fixture.http, { state: 's' }), { openId: account.openId });
  const tokens = await exchangeCode(fixture.http, callback.searchParams.get('code')!);
  return { openId: account.openId, token: tokens.accessToken };
}

/** The parts of the emulator's control view of a publish these tests read. */
interface PostView {
  postIds: string[];
  postInfo: unknown;
  request: Record<string, unknown>;
  media: { bytes: number; sha256: string | null; format: string | null }[];
  upload: { chunksReceived: number };
}

/** Calls the emulator's control API and returns its JSON answer. */
async function control(method: string, url: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${f.emulator.url}${url}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status).toBeLessThan(300);
  return response.json();
}

async function postView(publishId: string): Promise<PostView> {
  return (await control('GET', `/__control/posts/${publishId}`)) as PostView;
}

function fileSource(size: number, chunkSize = CHUNK) {
  return { source: 'FILE_UPLOAD' as const, videoSize: size, chunkSize };
}

/** Opens byte ranges of a file as streams, recording each range asked for. */
function opener(file: string, ranges: [number, number][] = []): TikTokUploadSource['open'] {
  return (start, end) => {
    ranges.push([start, end]);
    return createReadStream(file, { start, end });
  };
}

async function poll(token: string, publishId: string, until: (s: TikTokPublishState) => boolean) {
  for (let i = 0; i < 200; i += 1) {
    const state = await fetchPublishStatus(f.http, token, publishId);
    if (until(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`publish ${publishId} never reached the expected state`);
}

/** Status fetched by hand, so the ids can be compared with the raw JSON text TikTok sends. */
async function rawStatusText(token: string, publishId: string): Promise<string> {
  const response = await fetch(`${f.emulator.url}/v2/post/publish/status/fetch/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify({ publish_id: publishId }),
  });
  return response.text();
}

/** PUTs one chunk by hand (to put the upload host ahead of the client). */
async function putByHand(uploadUrl: string, bytes: Buffer, start: number, end: number, total: number) {
  const response = await fetch(uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'video/mp4', 'content-range': `bytes ${start}-${end}/${total}` },
    body: bytes.subarray(start, end + 1),
  });
  expect(response.status).toBe(206);
}

async function uploadRejection(promise: Promise<unknown>): Promise<TikTokUploadError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TikTokUploadError);
  return error as TikTokUploadError;
}

describe('FILE_UPLOAD', () => {
  it('streams a 16 MiB file in three chunks and ends PUBLISH_COMPLETE with an exact 19-digit post id', async () => {
    const { token } = await connect();
    const init = await initVideoPost(f.http, token, {
      postInfo: { privacyLevel: 'PUBLIC_TO_EVERYONE', title: 'Three chunks #test' },
      source: fileSource(BIG_SIZE),
    });
    expect(init.plan?.chunks.map((c) => c.size)).toEqual([CHUNK, CHUNK, BIG_SIZE - 2 * CHUNK]);
    const progress: number[] = [];
    const ranges: [number, number][] = [];
    await uploadVideo(
      init.uploadUrl!,
      { plan: init.plan!, mimeType: 'video/mp4', open: opener(bigFile, ranges) },
      { onProgress: (uploaded, total) => progress.push(uploaded, total) },
    );
    expect(progress).toEqual([CHUNK, BIG_SIZE, 2 * CHUNK, BIG_SIZE, BIG_SIZE, BIG_SIZE]);
    // Each chunk is read from disk on its own, never the whole file at once.
    expect(ranges).toEqual([
      [0, CHUNK - 1],
      [CHUNK, 2 * CHUNK - 1],
      [2 * CHUNK, BIG_SIZE - 1],
    ]);

    const state = await poll(token, init.publishId, (s) => isFinalPublishStatus(s.status) && s.postIds.length > 0);
    expect(state).toEqual({
      status: 'PUBLISH_COMPLETE',
      failReason: null,
      postIds: [expect.stringMatching(/^\d{19}$/)],
      uploadedBytes: BIG_SIZE,
      downloadedBytes: null,
    });
    // Character for character what TikTok's JSON held, beyond what a JS number could carry.
    const raw = await rawStatusText(token, init.publishId);
    const literal = /"publicaly_available_post_id":\[(\d+)\]/.exec(raw)?.[1];
    expect(literal).toBe(state.postIds[0]);
    expect(String(Number(literal))).not.toBe(literal);
    const post = await postView(init.publishId);
    expect(post.postIds).toEqual(state.postIds);
    expect(post.media[0]).toMatchObject({ bytes: BIG_SIZE, sha256: bigSha, format: 'mp4' });
    expect(post.postInfo).toEqual({
      privacy_level: 'PUBLIC_TO_EVERYONE',
      title: 'Three chunks #test',
      brand_content_toggle: false,
      brand_organic_toggle: false,
    });
  });

  it('retries a chunk the upload host failed with a 5xx', async () => {
    const { openId, token } = await connect();
    const init = await initVideoPost(f.http, token, {
      postInfo: { privacyLevel: 'SELF_ONLY' },
      source: fileSource(BIG_SIZE),
    });
    await control('POST', `/__control/accounts/${openId}/failures`, { endpoint: 'upload', status: 503, code: 'x' });
    const ranges: [number, number][] = [];
    await uploadVideo(
      init.uploadUrl!,
      { plan: init.plan!, mimeType: 'video/mp4', open: opener(bigFile, ranges) },
      {
        retryDelayMs: 1,
      },
    );
    const post = await postView(init.publishId);
    expect(post.upload.chunksReceived).toBe(3);
    // The failed chunk was read again from its start for the retry.
    expect(ranges.map(([start]) => start)).toEqual([0, 0, CHUNK, 2 * CHUNK]);
    expect(post.media[0]?.sha256).toBe(bigSha);
    expect((await poll(token, init.publishId, (s) => isFinalPublishStatus(s.status))).status).toBe('PUBLISH_COMPLETE');
  });

  it('gives up on a chunk after the bounded attempts', async () => {
    const { openId, token } = await connect();
    const init = await initInboxVideo(f.http, token, { source: fileSource(BIG_SIZE) });
    await control('POST', `/__control/accounts/${openId}/failures`, {
      endpoint: 'upload',
      status: 500,
      code: 'x',
      times: 3,
    });
    const source = { plan: init.plan!, mimeType: 'video/mp4' as const, open: opener(bigFile) };
    const error = await uploadRejection(
      uploadVideo(init.uploadUrl!, source, { retryDelayMs: 1, maxAttemptsPerChunk: 2 }),
    );
    expect(error).toMatchObject({
      tiktokCode: 'upload_server_error',
      httpStatus: 500,
      chunkIndex: 0,
      source: 'upload',
    });
    // Two attempts spent two of the three injected failures: the third still answers the next PUT.
    const again = await uploadRejection(uploadVideo(init.uploadUrl!, source, { maxAttemptsPerChunk: 1 }));
    expect(again.httpStatus).toBe(500);
    await uploadVideo(init.uploadUrl!, source);
  });

  it('takes a 416 showing the chunk already held as accepted (a lost answer), and goes on', async () => {
    const { token } = await connect();
    const init = await initInboxVideo(f.http, token, { source: fileSource(BIG_SIZE) });
    const bytes = await readFile(bigFile);
    await putByHand(init.uploadUrl!, bytes, 0, CHUNK - 1, BIG_SIZE);
    await uploadVideo(init.uploadUrl!, { plan: init.plan!, mimeType: 'video/mp4', open: opener(bigFile) });
    expect((await poll(token, init.publishId, (s) => s.status !== 'PROCESSING_UPLOAD')).status).toBe(
      'SEND_TO_USER_INBOX',
    );
  });

  it("fails a real progress mismatch (416) clearly, with the host's byte count", async () => {
    const { token } = await connect();
    const init = await initInboxVideo(f.http, token, { source: fileSource(BIG_SIZE) });
    const bytes = await readFile(bigFile);
    await putByHand(init.uploadUrl!, bytes, 0, CHUNK - 1, BIG_SIZE);
    await putByHand(init.uploadUrl!, bytes, CHUNK, 2 * CHUNK - 1, BIG_SIZE);
    const error = await uploadRejection(
      uploadVideo(init.uploadUrl!, { plan: init.plan!, mimeType: 'video/mp4', open: opener(bigFile) }),
    );
    expect(error).toMatchObject({
      tiktokCode: 'upload_range_mismatch',
      httpStatus: 416,
      chunkIndex: 0,
      serverUploadedBytes: 2 * CHUNK,
    });
    expect(error.message).toContain(`holds ${2 * CHUNK} bytes, not 0`);
  });

  it('refuses a source that yields fewer bytes than the chunk, without retrying or storing', async () => {
    const { token } = await connect();
    const init = await initInboxVideo(f.http, token, { source: fileSource(BIG_SIZE) });
    let opens = 0;
    const short: TikTokUploadSource['open'] = (start, end) => {
      opens += 1;
      return createReadStream(bigFile, { start, end: end - 1 });
    };
    const error = await uploadRejection(
      uploadVideo(init.uploadUrl!, { plan: init.plan!, mimeType: 'video/mp4', open: short }),
    );
    expect(error).toMatchObject({ tiktokCode: 'upload_source_mismatch', source: 'client', chunkIndex: 0 });
    expect(opens).toBe(1);
    expect((await postView(init.publishId)).upload.chunksReceived).toBe(0);
  });

  it('answers upload_not_found (404) for an unknown upload, without retrying', async () => {
    const { token } = await connect();
    const init = await initInboxVideo(f.http, token, { source: fileSource(300_000) });
    const url = init.uploadUrl!.replace(/upload_token=[^&]+/, 'upload_token=wrong');
    const error = await uploadRejection(
      uploadVideo(url, { plan: init.plan!, mimeType: 'video/mp4', open: opener(smallFile) }),
    );
    expect(error).toMatchObject({ tiktokCode: 'upload_not_found', httpStatus: 404 });
  });

  it('answers upload_url_expired (403) once the upload_url is past its life', async () => {
    const short = await startTikTokFixture({ uploadUrlTtlSec: 0 });
    try {
      const { token } = await connect({}, short);
      const init = await initInboxVideo(short.http, token, { source: fileSource(300_000) });
      const error = await uploadRejection(
        uploadVideo(init.uploadUrl!, { plan: init.plan!, mimeType: 'video/mp4', open: opener(smallFile) }),
      );
      expect(error).toMatchObject({ tiktokCode: 'upload_url_expired', httpStatus: 403 });
    } finally {
      await short.emulator.stop();
    }
  });

  it('sends a file under 5 MiB as one chunk; the draft reaches the inbox, then the user posts it', async () => {
    const { token } = await connect();
    const init = await initInboxVideo(f.http, token, { source: fileSource(300_000) });
    expect(init.plan).toMatchObject({ chunkSize: 300_000, totalChunkCount: 1 });
    await uploadVideo(init.uploadUrl!, { plan: init.plan!, mimeType: 'video/mp4', open: opener(smallFile) });
    const inbox = await poll(token, init.publishId, (s) => s.status !== 'PROCESSING_UPLOAD');
    expect(inbox).toMatchObject({ status: 'SEND_TO_USER_INBOX', postIds: [], uploadedBytes: 300_000 });
    await control('POST', `/__control/posts/${init.publishId}/user-posts`, { postCount: 3 });
    const done = await fetchPublishStatus(f.http, token, init.publishId);
    expect(done.status).toBe('PUBLISH_COMPLETE');
    expect(done.postIds).toHaveLength(3);
    expect(done.postIds).toEqual((await postView(init.publishId)).postIds);
    for (const id of done.postIds) expect(id).toMatch(/^\d{19}$/);
  });
});

describe('PULL_FROM_URL, moderation, failures and cancel', () => {
  it('pulls a video from a local server through to PUBLISH_COMPLETE', async () => {
    const { token } = await connect();
    const init = await initVideoPost(f.http, token, {
      postInfo: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
      source: { source: 'PULL_FROM_URL', videoUrl: `${mediaUrl}/big.mp4` },
    });
    const state = await poll(token, init.publishId, (s) => isFinalPublishStatus(s.status));
    expect(state).toEqual({
      status: 'PUBLISH_COMPLETE',
      failReason: null,
      postIds: [expect.stringMatching(/^\d{19}$/)],
      uploadedBytes: null,
      downloadedBytes: BIG_SIZE,
    });
    expect((await postView(init.publishId)).media[0]?.sha256).toBe(bigSha);
  });

  it('pulls a photo post through to PUBLISH_COMPLETE', async () => {
    const { token } = await connect();
    const init = await initPhotoPost(f.http, token, {
      postMode: 'DIRECT_POST',
      postInfo: { privacyLevel: 'PUBLIC_TO_EVERYONE', title: 'A photo' },
      photoImages: [`${mediaUrl}/photo.jpg`, `${mediaUrl}/photo.jpg`],
      photoCoverIndex: 1,
      isAigc: true,
    });
    const state = await poll(token, init.publishId, (s) => isFinalPublishStatus(s.status));
    expect(state).toMatchObject({ status: 'PUBLISH_COMPLETE', postIds: [expect.stringMatching(/^\d{19}$/)] });
    expect((await postView(init.publishId)).request).toMatchObject({ is_aigc: true });
  });

  it('reports PUBLISH_COMPLETE with no id while moderation runs, then the id', async () => {
    const { openId, token } = await connect();
    await control('PATCH', `/__control/accounts/${openId}`, { nextPublish: { moderationPolls: 2 } });
    const init = await initVideoPost(f.http, token, {
      postInfo: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
      source: fileSource(300_000),
    });
    await uploadVideo(init.uploadUrl!, { plan: init.plan!, mimeType: 'video/mp4', open: opener(smallFile) });
    const first = await fetchPublishStatus(f.http, token, init.publishId);
    const second = await fetchPublishStatus(f.http, token, init.publishId);
    const third = await fetchPublishStatus(f.http, token, init.publishId);
    expect([first, second].map((s) => [s.status, s.postIds])).toEqual([
      ['PUBLISH_COMPLETE', []],
      ['PUBLISH_COMPLETE', []],
    ]);
    expect(third.postIds).toEqual([expect.stringMatching(/^\d{19}$/)]);
  });

  it('reports an asynchronous FAILED with its fail_reason', async () => {
    const { openId, token } = await connect();
    await control('PATCH', `/__control/accounts/${openId}`, { nextPublish: { failReason: 'spam_risk_text' } });
    const init = await initVideoPost(f.http, token, {
      postInfo: { privacyLevel: 'SELF_ONLY', title: 'risky' },
      source: { source: 'PULL_FROM_URL', videoUrl: `${mediaUrl}/big.mp4` },
    });
    const state = await poll(token, init.publishId, (s) => isFinalPublishStatus(s.status));
    expect(state).toMatchObject({ status: 'FAILED', failReason: 'spam_risk_text', postIds: [] });
  });

  it('cancels a running download: FAILED publish_cancelled, and a second cancel is publish_not_cancellable', async () => {
    const { openId, token } = await connect();
    await control('PATCH', `/__control/accounts/${openId}`, { nextPublish: { stallPull: true } });
    const init = await initInboxVideo(f.http, token, {
      source: { source: 'PULL_FROM_URL', videoUrl: `${mediaUrl}/big.mp4` },
    });
    expect((await fetchPublishStatus(f.http, token, init.publishId)).status).toBe('PROCESSING_DOWNLOAD');
    await cancelPublish(f.http, token, init.publishId);
    expect(await fetchPublishStatus(f.http, token, init.publishId)).toMatchObject({
      status: 'FAILED',
      failReason: 'publish_cancelled',
    });
    const error = await cancelPublish(f.http, token, init.publishId).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TikTokApiError);
    expect(error).toMatchObject({ tiktokCode: 'publish_not_cancellable', httpStatus: 400 });
  });

  it('streams the source: an in-memory Readable per chunk works as well as a file', async () => {
    const { token } = await connect();
    const bytes = await readFile(smallFile);
    const init = await initVideoPost(f.http, token, {
      postInfo: { privacyLevel: 'SELF_ONLY' },
      source: fileSource(bytes.length),
    });
    const open = (start: number, end: number) => Promise.resolve(Readable.from([bytes.subarray(start, end + 1)]));
    await uploadVideo(init.uploadUrl!, { plan: init.plan!, mimeType: 'video/mp4', open });
    const state = await poll(token, init.publishId, (s) => isFinalPublishStatus(s.status));
    // SELF_ONLY posts never become public, so no id is ever reported.
    expect(state).toMatchObject({ status: 'PUBLISH_COMPLETE', postIds: [] });
  });
});
