import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMediaStore } from '../../src/core/media/open-store.js';
import { newStorageKey, type MediaStore } from '../../src/core/media/store.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { makeJpeg, makeMp4, pathOf, upload } from '../support/media.js';

// A local S3-compatible server (s3rver) on loopback: the S3 store is tested through the real SDK.
let s3: S3rver;
let s3Dir: string;
let store: MediaStore;
let t: TestDatabase;
let server: TestServer;
beforeAll(async () => {
  s3Dir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-s3-'));
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: 'postdeck-media', configs: [] }],
  });
  const { port } = await s3.run();
  store = openMediaStore({
    kind: 's3',
    bucket: 'postdeck-media',
    prefix: 'media/',
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  });
  t = await openTestDatabase();
  server = await startTestServer(t, { media: { store } });
});
afterAll(async () => {
  await server.stop();
  await t.close();
  await s3.close();
  await rm(s3Dir, { recursive: true, force: true });
});

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('the S3 media store', () => {
  it('puts a stream (multipart above 8 MB), reports size and SHA-256, reads ranges, deletes', async () => {
    const bytes = makeMp4(9 * 1024 * 1024);
    const key = newStorageKey();
    const stored = await store.put(key, Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]));
    expect(stored).toEqual({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(await store.exists(key)).toBe(true);
    expect((await bytesOf(await store.get(key))).equals(bytes)).toBe(true);
    expect((await bytesOf(await store.get(key, { start: 10, end: 19 }))).equals(bytes.subarray(10, 20))).toBe(true);
    await store.delete(key);
    expect(await store.exists(key)).toBe(false);
    await store.delete(key);
  });

  it('stores nothing when the stream fails', async () => {
    const key = newStorageKey();
    const failing = new Readable({ read() {} });
    failing.push(Buffer.alloc(1000));
    setTimeout(() => failing.destroy(new Error('client went away')), 20);
    await expect(store.put(key, failing)).rejects.toThrow('client went away');
    expect(await store.exists(key)).toBe(false);
  });

  it('serves uploads through the public URLs, ranges included', async () => {
    const tenant = await buildTenant(t.deps);
    const jpeg = await makeJpeg(800, 600);
    const media = (await (await upload(server, tenant.apiKey, { bytes: jpeg })).json()) as {
      publicUrl: string;
      previewUrl: string;
      thumbnailMetadata: unknown;
    };
    expect(media.thumbnailMetadata).toEqual({ width: 800, height: 600 });
    const whole = await server.request(pathOf(media.publicUrl));
    expect(Buffer.from(await whole.arrayBuffer()).equals(jpeg)).toBe(true);
    const part = await server.request(pathOf(media.publicUrl), { headers: { range: 'bytes=5-9' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(jpeg.subarray(5, 10))).toBe(true);
    expect((await server.request(pathOf(media.previewUrl))).headers.get('content-type')).toBe('image/webp');
  });
});
