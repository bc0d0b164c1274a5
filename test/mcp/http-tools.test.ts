import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/core/operations/registry.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { makeJpeg } from '../support/media.js';

// The MCP endpoint over real HTTP on loopback, reached with the SDK's own client and transport.
const { t, server } = await useTestServer();
const clients: Client[] = [];

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

async function connect(apiKey: string): Promise<Client> {
  const client = await connectMcpOverHttp(server.url, apiKey);
  clients.push(client);
  return client;
}

/** The error an isError result carries. */
function errorOf(result: CallToolResult): { code: string; message: string; details?: { path: unknown[] }[] } {
  expect(result.isError).toBe(true);
  const text = (result.content[0] as { text: string }).text;
  return (JSON.parse(text) as { error: { code: string; message: string; details?: { path: unknown[] }[] } }).error;
}

describe('the MCP endpoint', () => {
  it('lists one tool per operation, with its title, annotations and schemas', async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(OPERATIONS.map((operation) => operation.name).sort());
    for (const operation of OPERATIONS) {
      const tool = tools.find((each) => each.name === operation.name)!;
      expect(tool.title).toBe(operation.title);
      expect(tool.description).toContain(operation.summary);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations).toEqual({
        title: operation.title,
        readOnlyHint: operation.hints.readOnly,
        destructiveHint: operation.hints.destructive,
        idempotentHint: operation.hints.idempotent,
        openWorldHint: operation.hints.openWorld,
      });
      // Every tool declares what it returns; one with no result of its own says it is done.
      expect(tool.outputSchema?.type, operation.name).toBe('object');
      if (!operation.output) expect(tool.outputSchema?.properties).toEqual({ done: expect.any(Object) });
    }
    const listPlatforms = tools.find((tool) => tool.name === 'list_platforms')!;
    expect(listPlatforms.outputSchema?.properties).toHaveProperty('platforms');
    const upload = tools.find((tool) => tool.name === 'upload_media')!;
    expect(upload.inputSchema.properties).toHaveProperty('content');
    // As in REST, only the bytes are required: the name is optional.
    expect(upload.inputSchema.required).toEqual(['content']);
  });

  it('answers a read with structured content and the same as JSON text', async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const result = (await client.callTool({ name: 'list_platforms', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ platforms: [] });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ platforms: [] });
  });

  it('uploads base64 content checked as REST checks it, then finds it by id', async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const jpeg = await makeJpeg(320, 480);
    const uploaded = (await client.callTool({
      name: 'upload_media',
      arguments: { fileName: 'cover.jpg', content: jpeg.toString('base64') },
    })) as CallToolResult;
    expect(uploaded.isError).toBeFalsy();
    const media = uploaded.structuredContent as { id: string; mimeType: string; status: string; size: number };
    expect(media).toMatchObject({ mimeType: 'image/jpeg', status: 'READY', size: jpeg.length });
    const found = (await client.callTool({ name: 'get_media', arguments: { id: media.id } })) as CallToolResult;
    expect(found.structuredContent).toMatchObject({ id: media.id });
    // Text is not an image, whatever its name says.
    const spoofed = (await client.callTool({
      name: 'upload_media',
      arguments: { fileName: 'fake.jpg', content: Buffer.from('not an image at all').toString('base64') },
    })) as CallToolResult;
    expect(errorOf(spoofed).code).toBe('invalid_media_file');
  });

  it('uploads without a fileName as REST does, and refuses path (stdio only) by name', async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const jpeg = await makeJpeg(320, 480);
    const unnamed = (await client.callTool({
      name: 'upload_media',
      arguments: { content: jpeg.toString('base64') },
    })) as CallToolResult;
    expect(unnamed.isError).toBeFalsy();
    expect(unnamed.structuredContent).toMatchObject({ mimeType: 'image/jpeg', originalFileName: 'upload.jpg' });

    const byPath = errorOf(
      (await client.callTool({ name: 'upload_media', arguments: { path: '/tmp/holiday.jpg' } })) as CallToolResult,
    );
    expect(byPath.code).toBe('invalid_request');
    expect(byPath.details).toEqual(
      expect.arrayContaining([
        {
          path: ['path'],
          message: expect.stringMatching(/^path works only over stdio \(`postdeck mcp`.*create_upload_url$/),
        },
      ]),
    );
    expect(byPath.message).toContain('path works only over stdio');
    const byUrl = errorOf(
      (await client.callTool({
        name: 'upload_media',
        arguments: { url: 'https://example.com/a.jpg', content: jpeg.toString('base64') },
      })) as CallToolResult,
    );
    expect(byUrl.details).toEqual([{ path: ['url'], message: expect.stringContaining('url') }]);
  });

  it('composite_slides names a character no font draws in an unsupported_character warning its outputSchema states', async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const { tools } = await client.listTools();
    const composite = tools.find((tool) => tool.name === 'composite_slides')!;
    const warning = (composite.outputSchema?.properties?.warnings as { items: { properties: Record<string, unknown> } })
      .items;
    expect(warning.properties).toHaveProperty('characters');
    const uploaded = (await client.callTool({
      name: 'upload_media',
      arguments: { fileName: 'photo.jpg', content: (await makeJpeg(720, 1280)).toString('base64') },
    })) as CallToolResult;
    const { id } = uploaded.structuredContent as { id: string };
    const baked = (await client.callTool({
      name: 'composite_slides',
      arguments: { slides: [{ index: 0, mediaId: id, caption: 'Private \uE000 use' }] },
    })) as CallToolResult;
    expect(baked.isError).toBeFalsy();
    expect((baked.structuredContent as { warnings: unknown[] }).warnings).toEqual([
      { index: 0, code: 'unsupported_character', message: expect.stringContaining('U+E000'), characters: ['U+E000'] },
    ]);
  });

  it('names the malformed argument in an isError result', async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const result = (await client.callTool({ name: 'get_media', arguments: { id: 'not-a-uuid' } })) as CallToolResult;
    const error = errorOf(result);
    expect(error.code).toBe('invalid_request');
    expect(error.details?.[0]?.path).toEqual(['id']);
    const missing = errorOf(
      (await client.callTool({ name: 'upload_media', arguments: { fileName: 'x.jpg' } })) as CallToolResult,
    );
    expect(missing.details?.map((detail) => detail.path)).toEqual([['content']]);
  });

  it("answers not_found for another workspace's ids", async () => {
    const owner = await buildTenant(t.deps);
    const stranger = await buildTenant(t.deps);
    const ownerClient = await connect(owner.apiKey);
    const uploaded = (await ownerClient.callTool({
      name: 'upload_media',
      arguments: { fileName: 'mine.jpg', content: (await makeJpeg()).toString('base64') },
    })) as CallToolResult;
    const { id } = uploaded.structuredContent as { id: string };
    const strangerClient = await connect(stranger.apiKey);
    for (const name of ['get_media', 'delete_media']) {
      const result = (await strangerClient.callTool({ name, arguments: { id } })) as CallToolResult;
      expect(errorOf(result).code).toBe('not_found');
    }
    expect(
      ((await ownerClient.callTool({ name: 'get_media', arguments: { id } })) as CallToolResult).isError,
    ).toBeFalsy();
  });

  it('refuses a missing or wrong key with 401 and WWW-Authenticate', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initialize),
      });
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(((await missing.json()) as { code: string }).code).toBe('missing_api_key');
    const wrong = await post({ authorization: 'Bearer service_sk_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expect(connect('service_sk_wrong')).rejects.toThrow(/invalid_api_key/);
  });

  it('answers plain JSON unless a progress token asks for a stream; refuses bodies that are not JSON or too large', async () => {
    const tenant = await buildTenant(t.deps);
    const call = (params: Record<string, unknown>) =>
      server.request('/mcp', {
        method: 'POST',
        apiKey: tenant.apiKey,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
      });
    const plain = await call({ name: 'list_platforms', arguments: {} });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await plain.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({
      platforms: [],
    });
    const streamed = await call({ name: 'list_platforms', arguments: {}, _meta: { progressToken: 'p1' } });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await streamed.text()).toMatch(/^event: message\ndata: .*"platforms":\[\]/m);

    const raw = (body: string) =>
      server.request('/mcp', {
        method: 'POST',
        apiKey: tenant.apiKey,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
    const broken = await raw('{"jsonrpc": "2.0",');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const huge = await raw(JSON.stringify({ padding: 'x'.repeat(15 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
  });

  it('answers malformed tools/call params with -32602 in one line, and bodies that are no JSON-RPC with -32600', async () => {
    const tenant = await buildTenant(t.deps);
    const post = (body: string) =>
      server.request('/mcp', {
        method: 'POST',
        apiKey: tenant.apiKey,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
    const call = (params: unknown) => post(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params }));
    for (const params of [
      { name: 'list_platforms', arguments: [] },
      { name: 'list_platforms', arguments: 'x' },
      { name: 5, arguments: {} },
      {},
    ]) {
      const answer = await call(params);
      expect(answer.status, JSON.stringify(params)).toBe(200);
      const { id, error } = (await answer.json()) as { id: number; error: { code: number; message: string } };
      expect(id).toBe(9);
      expect(error.code, JSON.stringify(params)).toBe(-32602);
      expect(error.message).toMatch(/Invalid params: (arguments|name):/);
      expect(error.message).not.toContain('\n');
    }

    for (const body of ['{"jsonrpc": "2.0", "id": 1', '']) {
      const answer = await post(body);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(-32700);
    }
    for (const body of ['{}', '[]', '"tools/call"', '42', '{"jsonrpc":"2.0","id":1,"method":5}', '[{"id":1}]']) {
      const answer = await post(body);
      expect(answer.status, body).toBe(400);
      const { id, error } = (await answer.json()) as { id: null; error: { code: number; message: string } };
      expect(id).toBeNull();
      expect(error.code, body).toBe(-32600);
    }
  });

  it('answers GET and DELETE with 405 (stateless) and a foreign browser origin with 403', async () => {
    const tenant = await buildTenant(t.deps);
    for (const method of ['GET', 'DELETE']) {
      const answer = await server.request('/mcp', { method, apiKey: tenant.apiKey });
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
    const foreign = await server.request('/mcp', {
      method: 'POST',
      apiKey: tenant.apiKey,
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
  });

  it('offers the AI defaults as a resource (no prompt text) and a platform schema template; unknown ones are not found', async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['postdeck://workspace/ai-settings']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'postdeck://platforms/{platformId}/schema',
    ]);
    const read = await client.readResource({ uri: 'postdeck://workspace/ai-settings' });
    const defaults = JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;
    expect(defaults).toMatchObject({ defaultLanguage: 'en', defaultSlideLength: 'medium', defaultUseTopHooks: false });
    expect(defaults).not.toHaveProperty('systemPrompt');
    await expect(client.readResource({ uri: 'postdeck://nothing/here' })).rejects.toMatchObject({ code: -32002 });
    await expect(
      client.readResource({ uri: 'postdeck://platforms/6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b/schema' }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it('offers the carousel workflow prompt, which needs a topic', async () => {
    const tenant = await buildTenant(t.deps);
    const client = await connect(tenant.apiKey);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['make_carousel']);
    const prompt = await client.getPrompt({ name: 'make_carousel', arguments: { topic: 'sourdough basics' } });
    const text = (prompt.messages[0]?.content as { text: string }).text;
    expect(text).toContain('sourdough basics');
    for (const tool of [
      'list_platforms',
      'get_platform_schema',
      'generate_captions',
      'composite_slides',
      'create_post',
    ])
      expect(text).toContain(tool);
    expect(text.indexOf('list_platforms')).toBeLessThan(text.indexOf('create_post'));
    await expect(client.getPrompt({ name: 'make_carousel', arguments: {} })).rejects.toThrow(/topic/);
  });
});
