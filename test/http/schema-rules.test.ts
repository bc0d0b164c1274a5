import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';

// What the published schemas state and what the server does agree: a client (or a fuzzer) that
// reads /public/v1/openapi.json or tools/list finds every rule a valid-looking request meets.
let t: TestDatabase;
let server: TestServer;
let apiKey: string;
type Schema = Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };
let components: Record<string, Schema>;
let tools: Map<string, Schema>;

beforeAll(async () => {
  t = await openTestDatabase();
  server = await startTestServer(t);
  apiKey = (await buildTenant(t.deps)).apiKey;
  const doc = (await (await server.request('/public/v1/openapi.json')).json()) as {
    components: { schemas: Record<string, Schema> };
  };
  components = doc.components.schemas;
  const listed = await server.request('/mcp', {
    method: 'POST',
    apiKey,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  const { result } = (await listed.json()) as { result: { tools: { name: string; inputSchema: Schema }[] } };
  tools = new Map(result.tools.map((tool) => [tool.name, tool.inputSchema]));
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const post = (path: string, body: unknown) =>
  server.request(path, {
    method: 'POST',
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The body schema of a REST binding and the same operation's MCP tool arguments. */
function bothSurfaces(component: string, tool: string): Schema[] {
  return [components[component]!, tools.get(tool)!];
}

describe('rules across fields are stated where the request is described', () => {
  it('generate: exactly one of topic or slides, topic-only fields, unique indexes, the schedule rule', () => {
    for (const schema of bothSurfaces('SlideshowGenerateRequest', 'generate_slideshow')) {
      expect(schema.allOf).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ oneOf: [{ required: ['topic'] }, { required: ['slides'] }] }),
          expect.objectContaining({
            if: { required: ['slides'] },
            then: { properties: { slideCount: false, slideLength: false, useTopHooks: false } },
          }),
          {
            if: { properties: { mode: { const: 'schedule' } }, required: ['mode'] },
            then: { required: ['scheduledFor'] },
          },
        ]),
      );
      expect(schema.properties.slides).toMatchObject({ 'x-unique-by': 'index' });
      expect(schema.properties.slides!.description).toContain('each index at most once');
    }
  });

  it('composite: each index at most once', () => {
    for (const schema of bothSurfaces('SlideCompositeRequest', 'composite_slides')) {
      expect(schema.properties.slides).toMatchObject({
        'x-unique-by': 'index',
        description: expect.stringContaining('each index at most once'),
      });
    }
  });

  it('platforms: each once', () => {
    const schemas = [
      ...bothSurfaces('PostCreate', 'create_post'),
      ...bothSurfaces('SlideshowGenerateRequest', 'generate_slideshow'),
    ];
    for (const schema of schemas) expect(schema.properties.platformIds).toMatchObject({ uniqueItems: true });
  });

  // The refusal itself: test/platforms/post-rules.test.ts, "refuses unknown keys…".
  it('settings: keys no platform knows are refused, and the schemas say so', () => {
    const schemas = [
      ...bothSurfaces('PostPublish', 'publish_post'),
      ...bothSurfaces('PostCreate', 'create_post'),
      ...bothSurfaces('SlideshowGenerateRequest', 'generate_slideshow'),
    ];
    for (const schema of schemas) {
      const settings = schema.properties.settings as { additionalProperties: unknown; properties: object };
      expect(settings.additionalProperties).toBe(false);
      expect(Object.keys(settings.properties)).toEqual(expect.arrayContaining(['privacy_level', 'photo_cover_index']));
    }
  });
});

describe('date ranges state their rule', () => {
  const paths = ['/public/v1/posts', '/public/v1/analytics/posts', '/public/v1/analytics/accounts/{id}'];
  const toolNames = ['list_posts', 'list_post_metrics', 'get_account_metrics'];

  it('says on every surface that endDate comes after startDate, at most 93 days after it', async () => {
    const doc = (await (await server.request('/public/v1/openapi.json')).json()) as {
      paths: Record<string, { get: { parameters: { name: string; description?: string; schema?: Schema }[] } }>;
    };
    for (const path of paths) {
      const endDate = doc.paths[path]!.get.parameters.find((parameter) => parameter.name === 'endDate')!;
      expect(endDate.description ?? endDate.schema?.description, path).toContain(
        'after startDate and at most 93 days after it',
      );
    }
    for (const name of toolNames) {
      expect(tools.get(name)!.properties.endDate!.description, name).toContain(
        'after startDate and at most 93 days after it',
      );
    }
  });

  it('refuses a reversed or too long range on endDate, the same way for each', async () => {
    const platformId = '00000000-0000-4000-8000-000000000000';
    for (const path of [
      '/public/v1/posts',
      '/public/v1/analytics/posts',
      `/public/v1/analytics/accounts/${platformId}`,
    ]) {
      for (const [startDate, endDate] of [
        ['2026-05-02T00:00:00Z', '2026-05-01T00:00:00Z'],
        ['2026-01-01T00:00:00Z', '2026-05-01T00:00:00Z'],
      ]) {
        const answer = await server.request(`${path}?startDate=${startDate}&endDate=${endDate}`, { apiKey });
        expect(answer.status, path).toBe(400);
        expect(await answer.json()).toMatchObject({
          code: 'invalid_request',
          details: [{ path: ['query', 'endDate'] }],
        });
      }
    }
  });
});

describe('text limits apply to what was sent', () => {
  const name = (length: number, fill = ' ') => `a${fill.repeat(length - 1)}`;

  it('states the limits and the not-blank rule, and checks them on the text as sent', async () => {
    for (const schema of [components.SlideCaptionRequest!, tools.get('generate_captions')!]) {
      expect(schema.properties.topic).toMatchObject({ maxLength: 500, pattern: expect.any(String) });
      // The stated pattern refuses exactly what trimming would empty.
      const pattern = new RegExp(schema.properties.topic!.pattern as string);
      expect(['\u000b', ' \t\u3000\ufeff'].some((text) => pattern.test(text))).toBe(false);
      expect(pattern.test(' a ')).toBe(true);
    }
    const tooLong = await post('/public/v1/media/folders', { name: name(301) });
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as { details: { path: unknown[] }[] }).details[0]!.path).toEqual(['body', 'name']);
    const blank = await post('/public/v1/media/folders', { name: '\u000b' });
    expect(blank.status).toBe(400);
    expect(await blank.json()).toMatchObject({
      code: 'invalid_request',
      details: [{ path: ['body', 'name'], message: 'must have a character other than spaces' }],
    });
    const padded = await post('/public/v1/media/folders', { name: `  ${name(200)}  ` });
    expect(padded.status).toBe(201);
    expect(((await padded.json()) as { name: string }).name).toBe('a');
    const link = await post('/public/v1/media/upload-urls', { fileName: name(256) });
    expect(link.status).toBe(400);
  });
});

describe('ids that are no job are not found', () => {
  it('answers 404 for any job id, however long, over REST and MCP', async () => {
    for (const id of ['x', 'x'.repeat(201), 'y'.repeat(2000)]) {
      const answer = await server.request(`/public/v1/slides/generate/${id}`, { apiKey });
      expect(answer.status, `${id.length} characters`).toBe(404);
      expect(((await answer.json()) as { code: string }).code).toBe('not_found');
    }
    const called = await server.request('/mcp', {
      method: 'POST',
      apiKey,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'get_generation_job', arguments: { id: 'z'.repeat(500) } },
      }),
    });
    const { result } = (await called.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ error: { code: 'not_found' } });
    expect(components.GenerationJob).toBeDefined();
  });
});
