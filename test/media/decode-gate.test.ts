import { readdir } from 'node:fs/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createDecodeGate } from '../../src/core/media/decode-gate.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { makeJpeg, upload } from '../support/media.js';

// One decode at once and one waiting: the test holds both places itself, so nothing depends on timing.
const decodes = createDecodeGate({ slots: 1, queue: 1 });
const { t, server } = await useTestServer({ server: { media: { decodes } } });

/** Takes a place in the gate (a slot, else the queue) until the returned function is called. */
function hold(): { release: () => void; done: Promise<unknown> } {
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { release, done: decodes.run(() => held, 'wait') };
}

async function storedFiles(): Promise<number> {
  const entries = await readdir(server.mediaDir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the decode gate', () => {
  it('answers 503 server_busy with Retry-After when its queue is full, storing nothing; MCP answers the code', async () => {
    const tenant = await buildTenant(t.deps);
    const slot = hold();
    const queued = hold();
    expect(decodes.load()).toEqual({ running: 1, waiting: 1 });
    const before = await storedFiles();
    try {
      const response = await upload(server, tenant.apiKey, { bytes: await makeJpeg(), name: 'photo.jpg' });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('2');
      const body = (await response.json()) as { code: string; message: string };
      expect(body.code).toBe('server_busy');
      expect(body.message).toMatch(/try again in 2 seconds/);

      const client = await connectMcpOverHttp(server.url, tenant.apiKey);
      try {
        const content = (await makeJpeg()).toString('base64');
        const result = (await client.callTool({
          name: 'upload_media',
          arguments: { content, fileName: 'photo.jpg' },
        })) as CallToolResult;
        expect(result.isError).toBe(true);
        const text = (result.content[0] as { text: string }).text;
        expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe('server_busy');
      } finally {
        await client.close();
      }
      expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
      expect(await storedFiles()).toBe(before);
    } finally {
      slot.release();
      queued.release();
      await Promise.all([slot.done, queued.done]);
    }
    const after = await upload(server, tenant.apiKey, { bytes: await makeJpeg(), name: 'photo.jpg' });
    expect(after.status).toBe(201);
  });

  it('makes an upload wait for a free slot while the queue has room, then stores it', async () => {
    const tenant = await buildTenant(t.deps);
    const slot = hold();
    const answer = upload(server, tenant.apiKey, { bytes: await makeJpeg(), name: 'photo.jpg' });
    await until(() => decodes.load().waiting === 1);
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
    slot.release();
    await slot.done;
    expect((await answer).status).toBe(201);
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);
    expect(decodes.load()).toEqual({ running: 0, waiting: 0 });
  });
});
