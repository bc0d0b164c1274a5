import { describe, expect, it } from 'vitest';
import { MAX_IMAGE_PIXELS } from '../../src/core/media/preview.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { makeJpeg, upload } from '../support/media.js';

const { t, server } = await useTestServer();

/** A small JPEG whose frame header (SOF0) says `width` × `height`; its scan data is that of 16×16. */
async function jpegDeclaring(width: number, height: number): Promise<Buffer> {
  const bytes = await makeJpeg(16, 16);
  const sof = bytes.indexOf(Buffer.from([0xff, 0xc0]));
  if (sof < 0) throw new Error('no baseline frame header in the JPEG');
  bytes.writeUInt16BE(height, sof + 5);
  bytes.writeUInt16BE(width, sof + 7);
  return bytes;
}

describe('an image too large to decode', () => {
  it('is refused as too large, with its size and the limit, and nothing is stored', async () => {
    const tenant = await buildTenant(t.deps);
    const response = await upload(server, tenant.apiKey, {
      bytes: await jpegDeclaring(20_000, 20_000),
      name: 'huge.jpg',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe('invalid_media_file');
    expect(body.message).toBe(
      `The image is too large: 20000×20000 is 400 megapixels, and Postdeck reads images of up to ${Math.round(MAX_IMAGE_PIXELS / 1e6)} megapixels.`,
    );
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
  });
});
