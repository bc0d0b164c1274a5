import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TikTokInitError } from '../../src/core/providers/tiktok/errors.js';
import { TikTokHttp, type TikTokHttpOptions } from '../../src/core/providers/tiktok/http.js';
import { initInboxVideo, initPhotoPost, initVideoPost } from '../../src/core/providers/tiktok/publish.js';
import { TokenRateLimiter } from '../../src/core/providers/tiktok/rate-limiter.js';
import { fetchPublishStatus } from '../../src/core/providers/tiktok/status.js';
import { createLogger } from '../../src/logger.js';

/**
 * A loopback server standing in for TikTok where the emulator cannot: a connection cut after the
 * request arrived, an answer that never comes. It records every request it receives, so the tests
 * prove what was (or was not) sent and that inits are never sent twice.
 */
type Behaviour = 'ok-file' | 'ok-no-upload-url' | 'reset' | 'hang' | 'status';
let behaviour: Behaviour = 'ok-file';
let received: { path: string; body: unknown }[] = [];
let server: Server;
let baseUrl: string;

function handle(request: IncomingMessage, response: ServerResponse): void {
  let text = '';
  request.on('data', (part: Buffer) => (text += part.toString()));
  request.on('end', () => {
    received.push({ path: request.url ?? '', body: text ? JSON.parse(text) : undefined });
    if (behaviour === 'reset') return void request.socket.destroy();
    if (behaviour === 'hang') return;
    const data =
      behaviour === 'status'
        ? { status: 'PROCESSING_UPLOAD', uploaded_bytes: 0 }
        : behaviour === 'ok-file'
          ? { publish_id: 'v_pub_file~v2-1.1', upload_url: `${baseUrl}/video/?upload_id=1&upload_token=t` }
          : { publish_id: 'v_pub_file~v2-1.2' };
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ data, error: { code: 'ok', message: '', log_id: 'l' } }));
  });
}

function client(options: TikTokHttpOptions = {}): TikTokHttp {
  const config = { authBaseUrl: baseUrl, apiBaseUrl: baseUrl, clientKey: 'k', clientSecret: 's', redirectUri: 'x' };
  return new TikTokHttp(config, createLogger({ level: 'silent' }), { baseDelayMs: 1, ...options });
}

async function initFailure(promise: Promise<unknown>): Promise<TikTokInitError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TikTokInitError);
  return error as TikTokInitError;
}

const post = { privacyLevel: 'SELF_ONLY' } as const;

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  behaviour = 'ok-file';
  received = [];
});

describe('init request bodies', () => {
  it('sends a FILE_UPLOAD video init with TikTok snake_case names and the planned chunks', async () => {
    const result = await initVideoPost(client(), 'tok', {
      postInfo: {
        privacyLevel: 'PUBLIC_TO_EVERYONE',
        title: 'Hello #tag',
        disableDuet: true,
        disableStitch: false,
        disableComment: true,
        videoCoverTimestampMs: 1500,
        brandOrganicToggle: true,
        isAigc: true,
      },
      source: { source: 'FILE_UPLOAD', videoSize: 50_000_123, chunkSize: 10_000_000 },
    });
    expect(result).toMatchObject({ publishId: 'v_pub_file~v2-1.1', uploadUrl: expect.stringContaining('upload_id=1') });
    expect(result.plan?.totalChunkCount).toBe(5);
    expect(received).toEqual([
      {
        path: '/v2/post/publish/video/init/',
        body: {
          post_info: {
            privacy_level: 'PUBLIC_TO_EVERYONE',
            title: 'Hello #tag',
            disable_duet: true,
            disable_stitch: false,
            disable_comment: true,
            video_cover_timestamp_ms: 1500,
            brand_content_toggle: false,
            brand_organic_toggle: true,
            is_aigc: true,
          },
          source_info: { source: 'FILE_UPLOAD', video_size: 50_000_123, chunk_size: 10_000_000, total_chunk_count: 5 },
        },
      },
    ]);
  });

  it('sends PULL_FROM_URL inbox video with source_info only', async () => {
    behaviour = 'ok-no-upload-url';
    const result = await initInboxVideo(client(), 'tok', {
      source: { source: 'PULL_FROM_URL', videoUrl: 'https://media.example.com/v.mp4' },
    });
    expect(result).toEqual({ publishId: 'v_pub_file~v2-1.2' });
    expect(received).toEqual([
      {
        path: '/v2/post/publish/inbox/video/init/',
        body: { source_info: { source: 'PULL_FROM_URL', video_url: 'https://media.example.com/v.mp4' } },
      },
    ]);
  });

  it('sends photo posts with is_aigc at the top level and draft post_info without direct-only fields', async () => {
    behaviour = 'ok-no-upload-url';
    const photoImages = ['https://media.example.com/1.jpg', 'https://media.example.com/2.webp'];
    await initPhotoPost(client(), 'tok', {
      postMode: 'DIRECT_POST',
      postInfo: { privacyLevel: 'SELF_ONLY', title: 't', description: 'd', disableComment: false, autoAddMusic: true },
      photoImages,
      photoCoverIndex: 1,
      isAigc: false,
    });
    await initPhotoPost(client(), 'tok', {
      postMode: 'MEDIA_UPLOAD',
      postInfo: { title: 't2' },
      photoImages,
      photoCoverIndex: 0,
    });
    expect(received.map((r) => r.path)).toEqual(['/v2/post/publish/content/init/', '/v2/post/publish/content/init/']);
    expect(received[0]?.body).toEqual({
      media_type: 'PHOTO',
      post_mode: 'DIRECT_POST',
      post_info: {
        title: 't',
        description: 'd',
        privacy_level: 'SELF_ONLY',
        disable_comment: false,
        auto_add_music: true,
        brand_content_toggle: false,
        brand_organic_toggle: false,
      },
      source_info: { source: 'PULL_FROM_URL', photo_images: photoImages, photo_cover_index: 1 },
      is_aigc: false,
    });
    expect(received[1]?.body).toEqual({
      media_type: 'PHOTO',
      post_mode: 'MEDIA_UPLOAD',
      post_info: { title: 't2' },
      source_info: { source: 'PULL_FROM_URL', photo_images: photoImages, photo_cover_index: 0 },
    });
  });
});

describe('init failures the emulator cannot produce', () => {
  it('refuses invalid input before sending: createdNothing, nothing received', async () => {
    const http = client();
    const refusals = [
      initVideoPost(http, 't', {
        postInfo: { ...post, title: 'x'.repeat(2201) },
        source: { source: 'PULL_FROM_URL', videoUrl: 'https://a.example/v' },
      }),
      initVideoPost(http, 't', {
        postInfo: { privacyLevel: 'EVERYONE' as 'SELF_ONLY' },
        source: { source: 'PULL_FROM_URL', videoUrl: 'https://a.example/v' },
      }),
      initVideoPost(http, 't', {
        postInfo: { ...post, videoCoverTimestampMs: -1 },
        source: { source: 'PULL_FROM_URL', videoUrl: 'https://a.example/v' },
      }),
      initVideoPost(http, 't', { postInfo: post, source: { source: 'PULL_FROM_URL', videoUrl: 'not a url' } }),
      initVideoPost(http, 't', { postInfo: post, source: { source: 'FILE_UPLOAD', videoSize: 0 } }),
      initInboxVideo(http, 't', { source: { source: 'FILE_UPLOAD', videoSize: 50_000_000, chunkSize: 100 } }),
      initPhotoPost(http, 't', {
        postMode: 'DIRECT_POST',
        postInfo: { ...post, title: 'x'.repeat(91) },
        photoImages: ['https://a.example/1.jpg'],
        photoCoverIndex: 0,
      }),
      initPhotoPost(http, 't', {
        postMode: 'MEDIA_UPLOAD',
        postInfo: { description: 'x'.repeat(4001) },
        photoImages: ['https://a.example/1.jpg'],
        photoCoverIndex: 0,
      }),
      initPhotoPost(http, 't', { postMode: 'MEDIA_UPLOAD', postInfo: {}, photoImages: [], photoCoverIndex: 0 }),
      initPhotoPost(http, 't', {
        postMode: 'MEDIA_UPLOAD',
        postInfo: {},
        photoImages: Array(36).fill('https://a.example/1.jpg'),
        photoCoverIndex: 0,
      }),
      initPhotoPost(http, 't', {
        postMode: 'MEDIA_UPLOAD',
        postInfo: {},
        photoImages: ['https://a.example/1.jpg'],
        photoCoverIndex: 1,
      }),
    ];
    for (const attempt of refusals) {
      expect(await initFailure(attempt)).toMatchObject({
        createdNothing: true,
        source: 'client',
        code: 'invalid_request',
        tiktokCode: 'refused_by_client',
      });
    }
    expect(received).toEqual([]);
  });

  it('a title of exactly 2200 UTF-16 units (emoji count two) is sent', async () => {
    await initVideoPost(client(), 't', {
      postInfo: { ...post, title: '😀'.repeat(1100) },
      source: { source: 'FILE_UPLOAD', videoSize: 1000 },
    });
    expect(received).toHaveLength(1);
    const title = '😀'.repeat(1100) + 'x';
    const error = await initFailure(
      initVideoPost(client(), 't', {
        postInfo: { ...post, title },
        source: { source: 'FILE_UPLOAD', videoSize: 1000 },
      }),
    );
    expect(error.message).toMatch(/2201 UTF-16 code units/);
  });

  it('a connection cut after the request arrived is ambiguous and never retried', async () => {
    behaviour = 'reset';
    const error = await initFailure(
      initVideoPost(client({ maxRetries: 3 }), 't', {
        postInfo: post,
        source: { source: 'FILE_UPLOAD', videoSize: 1000 },
      }),
    );
    expect(error).toMatchObject({ createdNothing: false, tiktokCode: 'network_error', httpStatus: 0 });
    expect(received).toHaveLength(1);
  });

  it('a connection that could not be opened created nothing (the request never left)', async () => {
    // A port that was just free: nothing listens there, so the connection is refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const closedUrl = `http://127.0.0.1:${port}`;
    const closed = new TikTokHttp(
      { authBaseUrl: closedUrl, apiBaseUrl: closedUrl, clientKey: 'k', clientSecret: 's', redirectUri: 'x' },
      createLogger({ level: 'silent' }),
      { baseDelayMs: 1 },
    );
    const error = await initFailure(
      initVideoPost(closed, 't', { postInfo: post, source: { source: 'FILE_UPLOAD', videoSize: 1000 } }),
    );
    expect(error).toMatchObject({ createdNothing: true, tiktokCode: 'connection_failed', httpStatus: 0 });
  });

  it('a timeout is ambiguous and never retried', async () => {
    behaviour = 'hang';
    const error = await initFailure(
      initPhotoPost(client({ timeoutMs: 200, maxRetries: 3 }), 't', {
        postMode: 'MEDIA_UPLOAD',
        postInfo: {},
        photoImages: ['https://a.example/1.jpg'],
        photoCoverIndex: 0,
      }),
    );
    expect(error).toMatchObject({ createdNothing: false, tiktokCode: 'network_error' });
    expect(received).toHaveLength(1);
  });

  it('an ok answer without upload_url for FILE_UPLOAD is ambiguous (the publish exists)', async () => {
    behaviour = 'ok-no-upload-url';
    const error = await initFailure(
      initVideoPost(client(), 't', { postInfo: post, source: { source: 'FILE_UPLOAD', videoSize: 1000 } }),
    );
    expect(error).toMatchObject({ createdNothing: false, tiktokCode: 'unexpected_response' });
  });
});

describe('client-side rate limits', () => {
  /** A limiter whose clock only moves when it sleeps, recording each sleep and how many requests had arrived. */
  function recordingLimiter(): { limiter: TokenRateLimiter; sleeps: { ms: number; receivedBefore: number }[] } {
    let now = 0;
    const sleeps: { ms: number; receivedBefore: number }[] = [];
    const limiter = new TokenRateLimiter(60_000, {
      now: () => now,
      sleep: (ms) => {
        sleeps.push({ ms, receivedBefore: received.length });
        now += ms;
        return Promise.resolve();
      },
    });
    return { limiter, sleeps };
  }

  it('waits before the 7th video init of a token in a minute instead of spending a certain 429', async () => {
    const { limiter, sleeps } = recordingLimiter();
    const http = client({ limiter });
    const init = () =>
      initVideoPost(http, 'same', { postInfo: post, source: { source: 'FILE_UPLOAD', videoSize: 1000 } });
    for (let i = 0; i < 6; i += 1) await init();
    expect(sleeps).toEqual([]);
    await init();
    expect(sleeps).toEqual([{ ms: 60_001, receivedBefore: 6 }]);
    expect(received).toHaveLength(7);
    // Another token, and another init endpoint, have their own 6.
    await initVideoPost(http, 'other', { postInfo: post, source: { source: 'FILE_UPLOAD', videoSize: 1000 } });
    expect(sleeps).toHaveLength(1);
  });

  it('waits before the 31st status fetch of a token in a minute', async () => {
    behaviour = 'status';
    const { limiter, sleeps } = recordingLimiter();
    const http = client({ limiter });
    for (let i = 0; i < 30; i += 1) await fetchPublishStatus(http, 'same', 'p');
    expect(sleeps).toEqual([]);
    expect((await fetchPublishStatus(http, 'same', 'p')).status).toBe('PROCESSING_UPLOAD');
    expect(sleeps).toEqual([{ ms: 60_001, receivedBefore: 30 }]);
  });
});
