import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { makeJpeg } from '../support/media.js';
import { postdeckMcpTransport } from '../support/mcp.js';

// `postdeck mcp` spawned as a desktop agent runs it: the SDK's stdio client, the built entry point.
const { t, server } = await useTestServer();
let dir: string;
const clients: Client[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-mcp-stdio-'));
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(dir, { recursive: true, force: true });
});

function transport(apiKey: string) {
  return postdeckMcpTransport(apiKey, server.url, dir, 'pipe');
}

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'desktop-agent', version: '1.0.0' });
  await client.connect(transport(apiKey));
  clients.push(client);
  await client.listTools();
  return client;
}

const errorOf = (result: CallToolResult) =>
  (
    JSON.parse((result.content[0] as { text: string }).text) as {
      error: { code: string; details?: { path: unknown[] }[] };
    }
  ).error;

describe('postdeck mcp (stdio)', () => {
  it("serves the server's tools (upload_media with a local path besides base64), resources and prompts", async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['list_platforms', 'generate_slideshow']));
    const upload = tools.find((tool) => tool.name === 'upload_media')!;
    expect(upload.inputSchema.properties).toHaveProperty('path');
    expect(upload.inputSchema.properties).toHaveProperty('content');
    const listed = (await client.callTool({ name: 'list_platforms', arguments: {} })) as CallToolResult;
    expect(listed.structuredContent).toEqual({ platforms: [] });
    // Resources and prompts pass through from the server.
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['make_carousel']);
    const read = await client.readResource({ uri: 'postdeck://workspace/ai-settings' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toHaveProperty('defaultLanguage');
  }, 60_000);

  it('streams a local file to the server, checked as any upload; a missing file names the path', async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const file = path.join(dir, 'holiday.jpg');
    const jpeg = await makeJpeg(400, 600);
    writeFileSync(file, jpeg);
    const uploaded = (await client.callTool({ name: 'upload_media', arguments: { path: file } })) as CallToolResult;
    expect(uploaded.isError).toBeFalsy();
    const media = uploaded.structuredContent as { id: string; mimeType: string; size: number };
    expect(media).toMatchObject({ mimeType: 'image/jpeg', size: jpeg.length });
    const stored = await t.deps.db.media.findOne({ _id: media.id });
    expect(stored?.workspaceId).toBe(tenant.workspaceId);

    const text = path.join(dir, 'notes.jpg');
    writeFileSync(text, 'plain text pretending to be a photo');
    const spoofed = (await client.callTool({ name: 'upload_media', arguments: { path: text } })) as CallToolResult;
    expect(errorOf(spoofed).code).toBe('invalid_media_file');
    const missing = (await client.callTool({
      name: 'upload_media',
      arguments: { path: path.join(dir, 'nope.jpg') },
    })) as CallToolResult;
    expect(errorOf(missing)).toMatchObject({ code: 'invalid_request', details: [{ path: ['path'] }] });

    const inline = (await client.callTool({
      name: 'upload_media',
      arguments: { fileName: 'inline.jpg', content: jpeg.toString('base64') },
    })) as CallToolResult;
    expect(inline.structuredContent).toMatchObject({ mimeType: 'image/jpeg' });
  }, 60_000);

  it("answers not_found for another workspace's media", async () => {
    const owner = await buildTenant(t.deps);
    const stranger = await buildTenant(t.deps);
    const ownerClient = await connect(owner.apiKey);
    const uploaded = (await ownerClient.callTool({
      name: 'upload_media',
      arguments: { fileName: 'mine.jpg', content: (await makeJpeg()).toString('base64') },
    })) as CallToolResult;
    const { id } = uploaded.structuredContent as { id: string };
    const strangerClient = await connect(stranger.apiKey);
    const result = (await strangerClient.callTool({ name: 'get_media', arguments: { id } })) as CallToolResult;
    expect(errorOf(result).code).toBe('not_found');
  }, 60_000);

  // A desktop client shows only "server disconnected" when the handshake dies: the bridge answers it
  // whatever is wrong, lists the tools, and each call says what is wrong and how to fix it.
  it.each([
    [
      'a wrong key',
      'service_sk_wrong',
      () => server.url,
      'invalid_api_key',
      /^Postdeck at http:\/\/127\.0\.0\.1:\d+ refused the API key \(invalid_api_key: .*\. Fix: set POSTDECK_API_KEY /,
    ],
    [
      'a mistyped key',
      'sk-not-postdeck',
      () => server.url,
      'invalid_request',
      /^This MCP server's settings are not valid \(POSTDECK_API_KEY: .*\)\. Fix: /,
    ],
    [
      'no key at all',
      '',
      () => server.url,
      'missing_api_key',
      /^No API key for Postdeck at .*\. Fix: run `postdeck login`/,
    ],
    [
      'a server that is down',
      'service_sk_wrong',
      () => 'http://127.0.0.1:9',
      'internal_error',
      /^Postdeck is not reachable at http:\/\/127\.0\.0\.1:9 .*\. Fix: start it/,
    ],
  ])(
    'answers the handshake with %s and fails each tool call with the reason and the fix',
    async (_case, key, url, code, message) => {
      const client = new Client({ name: 'desktop-agent', version: '1.0.0' });
      const stdio = postdeckMcpTransport(key, url(), dir, 'pipe');
      let stderr = '';
      stdio.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await client.connect(stdio);
      clients.push(client);
      expect(client.getInstructions()).toMatch(/^Postdeck is not connected: /);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['list_platforms', 'upload_media']));
      const result = (await client.callTool({ name: 'list_platforms', arguments: {} })) as CallToolResult;
      expect(result.isError).toBe(true);
      const error = JSON.parse((result.content[0] as { text: string }).text) as {
        error: { code: string; message: string };
      };
      expect(error.error.code).toBe(code);
      expect(error.error.message).toMatch(message);
      expect(error.error.message).toMatch(/restart this MCP server/);
      expect(error.error.message).not.toContain('\n');
      await expect.poll(() => stderr, { timeout: 30_000 }).toContain(error.error.message);
    },
    60_000,
  );
});
