import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { makeJpeg, makeMp4, pathOf, upload } from '../support/media.js';

// The request log, captured: capability paths (media URLs, upload links) are logged without their token.
const lines: string[] = [];
const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
const { t, server } = await useTestServer({ database: { logger } });

describe('the request log', () => {
  it('names media URLs and upload links without the tokens that open them', async () => {
    const tenant = await buildTenant(t.deps);
    const media = (await (await upload(server, tenant.apiKey, { bytes: await makeJpeg() })).json()) as {
      id: string;
      publicUrl: string;
      previewUrl: string;
    };
    expect((await server.request(pathOf(media.publicUrl))).status).toBe(200);
    expect((await server.request(pathOf(media.previewUrl))).status).toBe(200);
    const link = (await (
      await server.request('/public/v1/media/upload-urls', {
        method: 'POST',
        apiKey: tenant.apiKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fileName: 'clip.mp4' }),
      })
    ).json()) as { uploadUrl: string };
    const put = await fetch(`${server.url}${pathOf(link.uploadUrl)}`, {
      method: 'PUT',
      body: new Uint8Array(makeMp4(1000)),
    });
    expect(put.status).toBe(201);

    const mediaToken = pathOf(media.publicUrl).split('/')[3]!;
    const linkToken = link.uploadUrl.split('/').pop()!;
    const paths = lines.map((line) => (JSON.parse(line) as { path?: string }).path).filter(Boolean);
    expect(paths).toEqual(
      expect.arrayContaining([`/m/${media.id}/…`, `/m/${media.id}/…/preview`, '/public/v1/uploads/…']),
    );
    expect(lines.join('\n')).not.toContain(mediaToken);
    expect(lines.join('\n')).not.toContain(linkToken);
  });
});
