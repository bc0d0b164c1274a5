import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMp4 } from '../support/video.js';
import { graphErrorOf, Harness, jpeg } from './harness.js';

let h: Harness;
let user: { userId: string; token: string };
beforeAll(async () => {
  h = await Harness.start();
  user = await h.connect();
});
afterAll(async () => {
  await h.close();
});

async function refusal(
  params: Record<string, string>,
): Promise<{ code: number; error_subcode?: number; message: string }> {
  const response = await h.create(user.userId, user.token, params);
  expect(response.status).toBe(400);
  return graphErrorOf(response);
}

describe('image containers', () => {
  it('fetches a JPEG, reads IN_PROGRESS while processing, then FINISHED, and stores its size', async () => {
    await h.control('PATCH', '/__control/settings', { imageProcessingMs: 600_000 });
    const url = h.media.serve('/ok.jpg', await jpeg(1080, 1350));
    const id = await h.containerOf(user.userId, user.token, { image_url: url, caption: 'Hello #one @two' });
    const read = await h.graph('GET', `/${id}`, user.token, { fields: 'status_code,status' });
    expect(await read.json()).toEqual({
      id,
      status_code: 'IN_PROGRESS',
      status: 'In Progress: Media is still being processed.',
    });
    await h.control('POST', '/__control/clock', { advanceSec: 601 });
    expect((await h.settled(id, user.token)).status_code).toBe('FINISHED');
    await h.control('PATCH', '/__control/settings', { imageProcessingMs: 0 });
    const listed = (await (await h.control('GET', '/__control/containers')).json()) as {
      containers: { id: string; item: unknown }[];
    };
    expect(listed.containers.find((c) => c.id === id)?.item).toMatchObject({
      kind: 'image',
      width: 1080,
      height: 1350,
    });
  });

  it('accepts the ratio bounds 4:5 and 1.91:1 and widths 320 and 1440, with parameters in a JSON body and a Bearer token', async () => {
    for (const [w, h2] of [
      [1080, 1350],
      [1146, 600],
      [320, 400],
      [1440, 1800],
    ] as const) {
      const url = h.media.serve(`/b-${w}x${h2}.jpg`, await jpeg(w, h2));
      const response = await fetch(`${h.emulator.url}/v25.0/${user.userId}/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ image_url: url }),
      });
      expect(response.status, `${w}x${h2}`).toBe(200);
    }
  });

  it('refuses ratios outside 4:5..1.91:1 with 36003 / 2207009 (9:16, 799x1000, 1200x628)', async () => {
    for (const [w, h2] of [
      [1080, 1920],
      [799, 1000],
      [1200, 628],
    ] as const) {
      const url = h.media.serve(`/r-${w}x${h2}.jpg`, await jpeg(w, h2));
      const error = await refusal({ image_url: url });
      expect(error, `${w}x${h2}`).toMatchObject({ code: 36003, error_subcode: 2207009 });
      expect(error.message).toContain('aspect ratio');
    }
  });

  it('refuses widths outside 320-1440 with code 100', async () => {
    for (const [w, h2] of [
      [319, 300],
      [1441, 1000],
    ] as const) {
      const url = h.media.serve(`/w-${w}.jpg`, await jpeg(w, h2));
      expect(await refusal({ image_url: url }), `${w}`).toMatchObject({
        code: 100,
        message: expect.stringContaining('width'),
      });
    }
  });

  it('refuses PNG and WebP with 36001 / 2207005 naming the format', async () => {
    const png = await sharp({ create: { width: 800, height: 800, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    expect(await refusal({ image_url: h.media.serve('/a.png', png) })).toMatchObject({
      code: 36001,
      error_subcode: 2207005,
      message: expect.stringContaining('png'),
    });
    const webp = await sharp({ create: { width: 800, height: 800, channels: 3, background: '#fff' } })
      .webp()
      .toBuffer();
    expect(await refusal({ image_url: h.media.serve('/a.webp', webp) })).toMatchObject({ code: 36001 });
  });

  it('refuses an image over 8 MiB with 36000 / 2207004', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024 + 1);
    big.set([0xff, 0xd8, 0xff, 0xe0]);
    expect(await refusal({ image_url: h.media.serve('/big.jpg', big) })).toMatchObject({
      code: 36000,
      error_subcode: 2207004,
    });
  });

  it('answers 9004 / 2207052 for an unreachable URL and -2 / 2207003 for a fetch too slow', async () => {
    expect(await refusal({ image_url: `${h.media.url}/missing.jpg` })).toMatchObject({
      code: 9004,
      error_subcode: 2207052,
    });
    await h.control('PATCH', '/__control/settings', { fetchTimeoutMs: 300 });
    expect(await refusal({ image_url: `${h.media.url}/stall` })).toMatchObject({ code: -2, error_subcode: 2207003 });
    await h.control('PATCH', '/__control/settings', { fetchTimeoutMs: 30_000 });
  });
});

describe('captions and collaborators', () => {
  it('refuses a caption over 2,200 characters with 36004 / 2207010 and accepts exactly 2,200', async () => {
    const url = h.media.serve('/c.jpg', await jpeg(1080, 1080));
    expect(await refusal({ image_url: url, caption: 'x'.repeat(2201) })).toMatchObject({
      code: 36004,
      error_subcode: 2207010,
    });
    await h.containerOf(user.userId, user.token, { image_url: url, caption: 'x'.repeat(2200) });
  });

  it('counts hashtags against the configured cap (30, then 5) and mentions against 20 (100 / 2207040)', async () => {
    const url = h.media.serve('/h.jpg', await jpeg(1080, 1080));
    const tags = (n: number): string => Array.from({ length: n }, (_, i) => `#tag${i}`).join(' ');
    await h.containerOf(user.userId, user.token, { image_url: url, caption: tags(30) });
    expect(await refusal({ image_url: url, caption: tags(31) })).toMatchObject({ code: 36004, error_subcode: 2207010 });
    await h.control('PATCH', '/__control/settings', { maxHashtags: 5 });
    expect(await refusal({ image_url: url, caption: tags(6) })).toMatchObject({ code: 36004 });
    await h.control('PATCH', '/__control/settings', { maxHashtags: 30 });
    const mentions = (n: number): string => Array.from({ length: n }, (_, i) => `@user${i}`).join(' ');
    await h.containerOf(user.userId, user.token, { image_url: url, caption: `${mentions(20)} mail@example.com` });
    expect(await refusal({ image_url: url, caption: mentions(21) })).toMatchObject({
      code: 100,
      error_subcode: 2207040,
    });
  });

  it('refuses a collaborator with a leading @ (110 / 2207018) and more than 3 collaborators', async () => {
    const url = h.media.serve('/k.jpg', await jpeg(1080, 1080));
    expect(await refusal({ image_url: url, collaborators: '["@ada"]' })).toMatchObject({
      code: 110,
      error_subcode: 2207018,
    });
    expect(await refusal({ image_url: url, collaborators: '["a","b","c","d"]' })).toMatchObject({ code: 100 });
    await h.containerOf(user.userId, user.token, { image_url: url, collaborators: '["ada","bob"]' });
  });

  it('answers 2207023 for an unknown media_type and refuses parameters a kind does not take', async () => {
    const url = h.media.serve('/m.jpg', await jpeg(1080, 1080));
    expect(await refusal({ image_url: url, media_type: 'GIF' })).toMatchObject({ code: 100, error_subcode: 2207023 });
    expect(await refusal({ image_url: url, share_to_feed: 'true' })).toMatchObject({
      message: '(#100) param share_to_feed is not allowed',
    });
    expect(await refusal({ media_type: 'REELS' })).toMatchObject({
      message: '(#100) The parameter video_url is required',
    });
  });
});

describe('video containers', () => {
  it('fetches a Reel, reads its header and reaches FINISHED', async () => {
    const url = h.media.serve(
      '/reel.mp4',
      buildMp4({ width: 1080, height: 1920, durationSec: 12, payloadBytes: 50_000 }),
    );
    const id = await h.containerOf(user.userId, user.token, {
      media_type: 'REELS',
      video_url: url,
      share_to_feed: 'true',
    });
    expect((await h.settled(id, user.token)).status_code).toBe('FINISHED');
    const listed = (await (await h.control('GET', '/__control/containers')).json()) as {
      containers: { id: string; item: unknown }[];
    };
    expect(listed.containers.find((c) => c.id === id)?.item).toMatchObject({
      kind: 'video',
      width: 1080,
      height: 1920,
      durationSec: 12,
    });
  });

  it('ends in ERROR with the subcode in status for a short video, a late moov, a non-MP4 and a bad thumb_offset', async () => {
    const mp4 = buildMp4({ durationSec: 10 });
    // A 16-byte mdat put between ftyp and moov: the moov is no longer at the front.
    const ftypEnd = mp4.readUInt32BE(0);
    const mdat = Buffer.concat([Buffer.from([0, 0, 0, 16]), Buffer.from('mdat'), Buffer.alloc(8)]);
    const moovLast = Buffer.concat([mp4.subarray(0, ftypEnd), mdat, mp4.subarray(ftypEnd)]);
    const cases: [string, Buffer, Record<string, string>, number][] = [
      ['/short.mp4', buildMp4({ durationSec: 2 }), {}, 2207026],
      ['/late-moov.mp4', moovLast, {}, 2207026],
      ['/not.mp4', await jpeg(1080, 1080), {}, 2207026],
      ['/offset.mp4', mp4, { thumb_offset: '10000' }, 2207057],
    ];
    for (const [path, bytes, extra, subcode] of cases) {
      const id = await h.containerOf(user.userId, user.token, {
        media_type: 'REELS',
        video_url: h.media.serve(path, bytes),
        ...extra,
      });
      expect(await h.settled(id, user.token), path).toEqual({
        id,
        status_code: 'ERROR',
        status: `Error: Media upload has failed with error code ${subcode}`,
      });
    }
  });
});

describe('resumable upload (rupload)', () => {
  function upload(uri: string, token: string, bytes: Buffer, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(uri, {
      method: 'POST',
      headers: { authorization: `OAuth ${token}`, offset: '0', file_size: String(bytes.length), ...headers },
      body: bytes,
    });
  }

  it('answers the container uri, takes the video bytes there, and checks them like a fetched video', async () => {
    const created = await h.create(user.userId, user.token, {
      media_type: 'REELS',
      upload_type: 'resumable',
      caption: 'up',
    });
    const { id, uri } = (await created.json()) as { id: string; uri: string };
    expect(uri).toBe(`${h.emulator.url}/ig-api-upload/v25.0/${id}`);
    expect((await h.settled(id, user.token)).status_code).toBe('IN_PROGRESS');
    const video = buildMp4({ durationSec: 9, payloadBytes: 20_000 });
    const sent = await upload(uri, user.token, video);
    expect(await sent.json()).toEqual({ success: true, message: 'Upload successful.' });
    expect((await h.settled(id, user.token)).status_code).toBe('FINISHED');

    const other = (await (
      await h.create(user.userId, user.token, { media_type: 'REELS', upload_type: 'resumable' })
    ).json()) as { id: string; uri: string };
    const short = await upload(other.uri, user.token, buildMp4({ durationSec: 1 }));
    expect(short.status).toBe(200);
    expect(await h.settled(other.id, user.token)).toMatchObject({
      status: 'Error: Media upload has failed with error code 2207026',
    });
  });

  it('refuses an unknown token with the debug_info body', async () => {
    const created = await h.create(user.userId, user.token, { media_type: 'REELS', upload_type: 'resumable' });
    const { uri } = (await created.json()) as { uri: string };
    const refused = await upload(uri, 'IGAAnope', buildMp4());
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { debug_info: { message: string; type: string } };
    expect(body.debug_info.type).toBe('ProcessingFailedError');
    expect(JSON.parse(body.debug_info.message)).toEqual({
      success: false,
      error: { message: 'unauthorized user request' },
    });
  });
});
