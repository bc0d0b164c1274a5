import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_IMAGE_PIXELS } from '../../src/core/media/preview.js';
import { newStorageKey } from '../../src/core/media/store.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { pngBomb } from '../support/image-bomb.js';
import { buildMedia, makeJpeg, upload } from '../support/media.js';

// Issue 32: a 31 KB 1-bit PNG of 16000×16000 pixels took the server from 263 MB to 3.28 GB.
const { t, server } = await useTestServer();
const bomb = pngBomb();
const refusal = `The image is too large: 16000×16000 is 256 megapixels, and Postdeck reads images of up to ${MAX_IMAGE_PIXELS / 1e6} megapixels.`;

/** Every file in the media store, whatever its folder: a refusal must leave none behind. */
async function storedFiles(): Promise<string[]> {
  const entries = await readdir(server.mediaDir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe('an image bomb', () => {
  it('is a 16000×16000 1-bit PNG of tens of kilobytes', () => {
    expect(bomb.length).toBeGreaterThan(10_000);
    expect(bomb.length).toBeLessThan(64_000);
  });

  it('sent to POST /public/v1/media is refused from its header (400 invalid_media_file) and nothing is stored', async () => {
    const tenant = await buildTenant(t.deps);
    const before = await storedFiles();
    const response = await upload(server, tenant.apiKey, { bytes: bomb, name: 'bomb.png', type: 'image/png' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'invalid_media_file', message: refusal });
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
    expect(await storedFiles()).toEqual(before);
  });

  it('sent eight at once is refused eight times, nothing stored, and the server still takes an image', async () => {
    const tenant = await buildTenant(t.deps);
    const before = await storedFiles();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => upload(server, tenant.apiKey, { bytes: bomb, name: 'bomb.png' })),
    );
    const bodies = await Promise.all(responses.map((response) => response.json()));
    expect(responses.map((response) => response.status)).toEqual(Array(8).fill(400));
    expect(bodies).toEqual(Array(8).fill({ code: 'invalid_media_file', message: refusal }));
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
    expect(await storedFiles()).toEqual(before);
    expect(server.media.decodes.load()).toEqual({ running: 0, waiting: 0 });
    const photo = await upload(server, tenant.apiKey, { bytes: await makeJpeg(), name: 'photo.jpg' });
    expect(photo.status).toBe(201);
  });

  it('sent through an upload link is refused, nothing is stored, and the link can still be used', async () => {
    const tenant = await buildTenant(t.deps);
    const made = await server.request('/public/v1/media/upload-urls', {
      method: 'POST',
      apiKey: tenant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'bomb.png' }),
    });
    expect(made.status).toBe(201);
    const { uploadUrl } = (await made.json()) as { uploadUrl: string };
    const path = new URL(uploadUrl).pathname;
    const before = await storedFiles();
    const put = await server.request(path, { method: 'PUT', body: new Uint8Array(bomb) });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({ code: 'invalid_media_file', message: refusal });
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
    expect(await storedFiles()).toEqual(before);
    const links = await t.deps.db.uploadLinks.find({ workspaceId: tenant.workspaceId }).toArray();
    expect(links.map((link) => link.state)).toEqual(['open']);
    const again = await server.request(path, { method: 'PUT', body: new Uint8Array(await makeJpeg()) });
    expect(again.status).toBe(201);
  });

  it('stored as a composite input (media made before the cap) is refused before it is decoded, nothing made', async () => {
    const tenant = await buildTenant(t.deps);
    const storageKey = newStorageKey();
    await t.deps.media.store.put(storageKey, Readable.from([bomb]));
    const source = await buildMedia(t.deps, tenant.workspaceId, {
      storageKey,
      mimeType: 'image/png',
      size: bomb.length,
      thumbnailMetadata: { width: 16_000, height: 16_000 },
    });
    const response = await server.request('/public/v1/slides/composite', {
      method: 'POST',
      apiKey: tenant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        slides: [
          { index: 0, mediaId: source._id, caption: 'A hook on a bomb' },
          { index: 1, mediaId: source._id, caption: 'And a second slide' },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'invalid_media_file', message: refusal });
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);
    expect(server.media.decodes.load()).toEqual({ running: 0, waiting: 0 });
  });
});
