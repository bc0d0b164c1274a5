import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { makeMp4 } from '../support/media.js';

const { t, server } = await useTestServer();

async function filesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

describe('an upload the client abandons', () => {
  it('leaves no record and no file once the client disconnects mid-body', async () => {
    const tenant = await buildTenant(t.deps);
    const boundary = 'postdeck-test-boundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\n` +
        'Content-Type: video/mp4\r\n\r\n',
    );
    const declaredFileBytes = 32 * 1024 * 1024;
    const { port } = new URL(server.url);
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/public/v1/media',
      headers: {
        authorization: `Bearer ${tenant.apiKey}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + declaredFileBytes + 100),
      },
    });
    req.on('error', () => undefined);
    req.write(head);
    req.write(makeMp4(4 * 1024 * 1024));
    // Wait until the server has written part of the file, then vanish mid-body.
    await expect.poll(async () => (await filesIn(server.mediaDir)).length, { timeout: 10_000 }).toBeGreaterThan(0);
    req.destroy();

    await expect.poll(async () => filesIn(server.mediaDir), { timeout: 10_000 }).toEqual([]);
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
    // The server is still fine afterwards.
    expect((await server.request('/public/v1/media', { apiKey: tenant.apiKey })).status).toBe(200);
  });
});
