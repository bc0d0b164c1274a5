import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeJpeg, makePng, makeWebp } from '../support/media.js';
import {
  apiCall,
  connectRaw,
  controlCall,
  pollStatus,
  startTikTokFixture,
  type TikTokFixture,
} from '../support/tiktok.js';
import { buildMp4 } from '../support/video.js';

const VIDEO = '/v2/post/publish/video/init/';
const CONTENT = '/v2/post/publish/content/init/';
const CANCEL = '/v2/post/publish/cancel/';

// A tiny media host: fixed files, a redirect, a 404 and a download that stalls after ten bytes.
const files = new Map<string, Buffer>();
const hits: string[] = [];
let media: Server;
let mediaBase: string;
const stalled: ServerResponse[] = [];

let f: TikTokFixture;
let url: string;
// A second emulator whose pulls time out after a second, for the tests of that timeout only: a
// short timeout on every pull would fail honest downloads whenever the machine is busy.
let short: TikTokFixture;
let shortUrl: string;
const SHORT_PULL_TIMEOUT_MS = 1_000;
beforeAll(async () => {
  files.set('/media/portrait.jpg', await makeJpeg(1080, 1920));
  files.set('/media/square.webp', await makeWebp(800, 800));
  files.set('/media/shot.png', await makePng());
  files.set('/media/huge.jpg', await makeJpeg(2000, 2000));
  files.set('/media/landscape.jpg', await makeJpeg(1920, 1080));
  files.set('/media/heavy.jpg', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(400_000)]));
  files.set('/media/clip.mp4', buildMp4({ width: 720, height: 1280, durationSec: 8, fps: 25, payloadBytes: 300_000 }));
  media = createServer((req, res) => {
    hits.push(req.url ?? '');
    const file = files.get(req.url ?? '');
    if (file) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.length });
      res.end(file);
    } else if (req.url === '/media/moved.mp4') {
      res.writeHead(302, { location: '/media/clip.mp4' });
      res.end();
    } else if (req.url?.startsWith('/media/stall')) {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 1_000_000 });
      res.write(Buffer.alloc(10));
      stalled.push(res);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  media.listen(0, '127.0.0.1');
  await once(media, 'listening');
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
  const options = {
    rateLimits: { videoInit: 1000, contentInit: 1000, status: 100_000 },
    allowHttpPullUrls: true,
    verifiedUrlPrefixes: [`${mediaBase}/media/`],
    maxPhotoBytes: 300_000,
  };
  f = await startTikTokFixture(options);
  url = f.emulator.url;
  short = await startTikTokFixture({ ...options, pullTimeoutMs: SHORT_PULL_TIMEOUT_MS });
  shortUrl = short.emulator.url;
});
afterAll(async () => {
  await f.emulator.stop();
  await short?.emulator.stop();
  for (const res of stalled) res.destroy();
  media.closeAllConnections();
  await new Promise((resolve) => media.close(resolve));
});

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function pullVideo(token: string, path: string, privacy = 'PUBLIC_TO_EVERYONE', to = url): Promise<string> {
  const answer = await apiCall(to, token, VIDEO, {
    post_info: { privacy_level: privacy },
    source_info: { source: 'PULL_FROM_URL', video_url: `${mediaBase}${path}` },
  });
  expect(answer.status).toBe(200);
  return String(answer.json.data!.publish_id);
}

async function pullPhotos(token: string, paths: string[], mode = 'DIRECT_POST', to = url): Promise<string> {
  const answer = await apiCall(to, token, CONTENT, {
    media_type: 'PHOTO',
    post_mode: mode,
    post_info: { privacy_level: 'PUBLIC_TO_EVERYONE', title: 'photos' },
    source_info: { source: 'PULL_FROM_URL', photo_images: paths.map((p) => `${mediaBase}${p}`), photo_cover_index: 0 },
  });
  expect(answer.status).toBe(200);
  return String(answer.json.data!.publish_id);
}

async function post(publishId: string): Promise<Record<string, unknown>> {
  return (await (await controlCall(url, 'GET', `/__control/posts/${publishId}`)).json()) as Record<string, unknown>;
}

describe('PULL_FROM_URL photos', () => {
  it('downloads JPEG and WebP photos, records their exact sha256 and posts them', async () => {
    const { token } = await connectRaw(url);
    const paths = ['/media/portrait.jpg', '/media/square.webp', '/media/landscape.jpg'];
    const publishId = await pullPhotos(token, paths);
    const total = paths.reduce((sum, p) => sum + files.get(p)!.length, 0);
    const done = await pollStatus(url, token, publishId);
    expect(done.data).toMatchObject({ status: 'PUBLISH_COMPLETE', downloaded_bytes: total });
    expect(done.text).toMatch(/"publicaly_available_post_id":\[\d{19}\]/);
    expect((await post(publishId)).media).toEqual([
      {
        url: `${mediaBase}${paths[0]}`,
        bytes: files.get(paths[0]!)!.length,
        sha256: sha(files.get(paths[0]!)!),
        format: 'jpeg',
        width: 1080,
        height: 1920,
      },
      {
        url: `${mediaBase}${paths[1]}`,
        bytes: files.get(paths[1]!)!.length,
        sha256: sha(files.get(paths[1]!)!),
        format: 'webp',
        width: 800,
        height: 800,
      },
      expect.objectContaining({ format: 'jpeg', width: 1920, height: 1080 }),
    ]);
  });

  it.each([
    ['/media/shot.png', 'file_format_check_failed'],
    ['/media/huge.jpg', 'picture_size_check_failed'],
    ['/media/heavy.jpg', 'picture_size_check_failed'],
    ['/media/missing.jpg', 'photo_pull_failed'],
  ])('fails %s with %s', async (path, reason) => {
    const { token } = await connectRaw(url);
    const publishId = await pullPhotos(token, ['/media/portrait.jpg', path]);
    expect((await pollStatus(url, token, publishId)).data).toMatchObject({ status: 'FAILED', fail_reason: reason });
  });

  it('ends a photo draft (MEDIA_UPLOAD) in SEND_TO_USER_INBOX', async () => {
    const { token } = await connectRaw(url);
    const publishId = await pullPhotos(token, ['/media/square.webp'], 'MEDIA_UPLOAD');
    expect((await pollStatus(url, token, publishId)).data).toMatchObject({ status: 'SEND_TO_USER_INBOX' });
  });
});

describe('PULL_FROM_URL videos', () => {
  it('downloads and checks a video, recording its exact size and sha256', async () => {
    const { token } = await connectRaw(url);
    const publishId = await pullVideo(token, '/media/clip.mp4');
    const clip = files.get('/media/clip.mp4')!;
    const done = await pollStatus(url, token, publishId);
    expect(done.data).toEqual({
      status: 'PUBLISH_COMPLETE',
      publicaly_available_post_id: [expect.any(Number)],
      downloaded_bytes: clip.length,
    });
    expect((await post(publishId)).media).toEqual([
      {
        url: `${mediaBase}/media/clip.mp4`,
        bytes: clip.length,
        sha256: sha(clip),
        format: 'mp4',
        width: 720,
        height: 1280,
        durationSec: 8,
        fps: 25,
      },
    ]);
  });

  it('does not follow redirects: a 3xx fails with video_pull_failed', async () => {
    const { token } = await connectRaw(url);
    hits.length = 0;
    const publishId = await pullVideo(token, '/media/moved.mp4');
    expect((await pollStatus(url, token, publishId)).data).toMatchObject({
      status: 'FAILED',
      fail_reason: 'video_pull_failed',
    });
    expect(hits).toEqual(['/media/moved.mp4']);
  });

  it('fails a stalled download with video_pull_failed after the pull timeout', async () => {
    const { token } = await connectRaw(shortUrl);
    const started = Date.now();
    const publishId = await pullVideo(token, '/media/stall-1.mp4', 'PUBLIC_TO_EVERYONE', shortUrl);
    const done = await pollStatus(shortUrl, token, publishId);
    expect(done.data).toMatchObject({ status: 'FAILED', fail_reason: 'video_pull_failed' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(SHORT_PULL_TIMEOUT_MS - 50);
  });

  it('fails with *_pull_failed when the nextPublish directive stalls the pull', async () => {
    const { openId, token } = await connectRaw(shortUrl);
    await controlCall(shortUrl, 'PATCH', `/__control/accounts/${openId}`, { nextPublish: { stallPull: true } });
    const publishId = await pullPhotos(token, ['/media/portrait.jpg'], 'DIRECT_POST', shortUrl);
    expect((await pollStatus(shortUrl, token, publishId)).data).toMatchObject({
      status: 'FAILED',
      fail_reason: 'photo_pull_failed',
      downloaded_bytes: 0,
    });
  });

  it('cancels a running download (FAILED publish_cancelled); a final publish is not cancellable', async () => {
    const { token } = await connectRaw(url);
    const publishId = await pullVideo(token, '/media/stall-2.mp4');
    // This emulator's pulls never time out, so the stalled download is seen midway however long it takes.
    const midway = await pollStatus(url, token, publishId, (d) => d.downloaded_bytes === 10);
    expect(midway.data).toEqual({
      status: 'PROCESSING_DOWNLOAD',
      publicaly_available_post_id: [],
      downloaded_bytes: 10,
    });
    const cancel = await apiCall(url, token, CANCEL, { publish_id: publishId });
    expect(cancel.status).toBe(200);
    expect(cancel.json).toEqual({ error: { code: 'ok', message: '', log_id: expect.any(String) } });
    expect((await pollStatus(url, token, publishId)).data).toMatchObject({
      status: 'FAILED',
      fail_reason: 'publish_cancelled',
    });
    const again = await apiCall(url, token, CANCEL, { publish_id: publishId });
    expect({ status: again.status, code: again.json.error.code }).toEqual({
      status: 400,
      code: 'publish_not_cancellable',
    });
  });
});

describe('pullVia', () => {
  it('fetches media URLs of one address from another (in Docker: localhost of the browser, reached as the api service)', async () => {
    const docker = await startTikTokFixture({
      allowHttpPullUrls: true,
      verifiedUrlPrefixes: ['http://localhost:18080/media/'],
      pullVia: { from: 'http://localhost:18080/media/', to: `${mediaBase}/media/` },
    });
    try {
      const { token } = await connectRaw(docker.emulator.url);
      const answer = await apiCall(docker.emulator.url, token, CONTENT, {
        media_type: 'PHOTO',
        post_mode: 'DIRECT_POST',
        post_info: { privacy_level: 'PUBLIC_TO_EVERYONE', title: 'via' },
        source_info: {
          source: 'PULL_FROM_URL',
          photo_images: ['http://localhost:18080/media/portrait.jpg'],
          photo_cover_index: 0,
        },
      });
      const publishId = String(answer.json.data!.publish_id);
      const done = await pollStatus(docker.emulator.url, token, publishId);
      expect(done.data).toMatchObject({ status: 'PUBLISH_COMPLETE' });
      expect(hits.at(-1)).toBe('/media/portrait.jpg');
      const record = (await (
        await controlCall(docker.emulator.url, 'GET', `/__control/posts/${publishId}`)
      ).json()) as {
        media: { url: string }[];
      };
      expect(record.media[0]!.url).toBe('http://localhost:18080/media/portrait.jpg');
    } finally {
      await docker.emulator.stop();
    }
  });
});
