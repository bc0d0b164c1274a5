import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatorTenant, FREE_AND_CREATOR_PLANS, startAiStack, type AiStack } from '../support/ai.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { makeJpeg, upload } from '../support/media.js';
import { call, DIRECT, type Detail } from '../support/posts.js';

// Everything a generation job needs is checked when it is submitted: nothing is spent on a job that
// can only fail, and no bad input reaches the renderer or the database as a 500.
let stack: AiStack;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await startAiStack({
    plans: FREE_AND_CREATOR_PLANS,
  });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await stack.stop();
});

async function mcp(apiKey: string): Promise<Client> {
  const client = await connectMcpOverHttp(stack.server.url, apiKey);
  clients.push(client);
  return client;
}

function toolError(result: CallToolResult): { code: string; details?: Detail[] } {
  expect(result.isError).toBe(true);
  return (JSON.parse((result.content[0] as { text: string }).text) as { error: { code: string; details?: Detail[] } })
    .error;
}

/** Nothing spent and no job stored: what a refused submit must leave behind. */
async function expectNothingSpent(tenant: { apiKey: string; workspaceId: string }) {
  const usage = (await call(stack.server, tenant.apiKey, 'GET', '/usage')).body as Record<string, { used: number }>;
  expect(usage.captionCredits?.used).toBe(0);
  expect(usage.imageCredits?.used).toBe(0);
  expect(await stack.t.deps.db.generationJobs.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
}

const slides = (caption: string) => [{ index: 0, caption, imagePrompt: 'a calm lake at dawn, wide shot' }];
const INVISIBLE = [' ', '\u200b', '\u00ad', '\ufeff', '\u202e', '\u0000'];

describe('generate checks the post it will make before spending', () => {
  it.each([
    ['a privacy level TikTok does not offer', { settings: { ...DIRECT, privacy_level: 'NOPE' } }, 'privacy_level'],
    ['no content_posting_method', { settings: { privacy_level: 'PUBLIC_TO_EVERYONE' } }, 'content_posting_method'],
    ['an unknown setting', { settings: { ...DIRECT, colour: 'red' } }, 'colour'],
    ['a video-only setting', { settings: { ...DIRECT, disable_duet: true } }, 'disable_duet'],
  ])('refuses %s with 400 at the setting, spending nothing', async (_, body, key) => {
    const { tenant, platform } = await creatorTenant(stack);
    for (const path of [{ topic: 'tea' }, { slides: slides('Hook') }]) {
      const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
        platformIds: [platform._id],
        mode: 'draft',
        ...path,
        ...body,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('invalid_request');
      expect(answer.body.details?.map((detail) => detail.path)).toContainEqual(['body', 'settings', key]);
    }
    await expectNothingSpent(tenant);
  });

  it('refuses a schedule time in the past with 400 at scheduledFor, spending nothing', async () => {
    const { tenant, platform } = await creatorTenant(stack);
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      topic: 'tea',
      mode: 'schedule',
      scheduledFor: new Date(Date.now() - 60_000).toISOString(),
      settings: DIRECT,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.details?.map((detail) => detail.path)).toEqual([['body', 'scheduledFor']]);
    await expectNothingSpent(tenant);
  });

  it('refuses the same through the generate_slideshow tool', async () => {
    const { tenant, platform } = await creatorTenant(stack);
    const client = await mcp(tenant.apiKey);
    const result = (await client.callTool({
      name: 'generate_slideshow',
      arguments: { platformIds: [platform._id], topic: 'tea', mode: 'draft', settings: { privacy_level: 'NOPE' } },
    })) as CallToolResult;
    const error = toolError(result);
    expect(error.code).toBe('invalid_request');
    expect(error.details?.map((detail) => detail.path)).toEqual(
      expect.arrayContaining([
        ['settings', 'privacy_level'],
        ['settings', 'content_posting_method'],
      ]),
    );
    await expectNothingSpent(tenant);
  });
});

describe('keys the database refuses', () => {
  it.each([
    [{ $gt: '' }, ['settings', '$gt']],
    [{ 'a.b': 1 }, ['settings', 'a.b']],
    [{ ...DIRECT, title: { nested: [{ $where: 'x' }] } }, ['settings', 'title', 'nested', 0, '$where']],
    [{ 'nul\u0000key': true }, ['settings', 'nul\u0000key']],
  ])(
    'answers 400 naming the key of settings %j on generate, create and the generate_slideshow tool',
    async (settings, path) => {
      const { tenant, platform } = await creatorTenant(stack);
      const generate = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
        platformIds: [platform._id],
        topic: 'tea',
        mode: 'draft',
        settings,
      });
      expect(generate.status).toBe(400);
      expect(generate.body.details?.[0]?.path).toEqual(['body', ...path]);
      expect(generate.body.details?.[0]?.message).toMatch(/cannot be stored/);
      const create = await call(stack.server, tenant.apiKey, 'POST', '/posts', {
        platformIds: [platform._id],
        content: 'x',
        mode: 'draft',
        mediaIds: [],
        settings,
        threadReplies: [{ text: 'r', settings }],
      });
      expect(create.status).toBe(400);
      expect(create.body.details?.map((detail) => detail.path)).toEqual([
        ['body', ...path],
        ['body', 'threadReplies', 0, ...path],
      ]);
      const client = await mcp(tenant.apiKey);
      const tool = toolError(
        (await client.callTool({
          name: 'generate_slideshow',
          arguments: { platformIds: [platform._id], topic: 'tea', mode: 'draft', settings },
        })) as CallToolResult,
      );
      expect(tool.code).toBe('invalid_request');
      expect(tool.details?.[0]?.path).toEqual(path);
      await expectNothingSpent(tenant);
    },
  );
});

describe('captions with no visible characters', () => {
  it.each(INVISIBLE.map((caption) => [JSON.stringify(caption), caption]))(
    'are refused at slides[i].caption by composite and generate: %s',
    async (_, caption) => {
      const { tenant, platform } = await creatorTenant(stack);
      const response = await upload(stack.server, tenant.apiKey, {
        bytes: await makeJpeg(1024, 1536),
        name: 'p.jpg',
        type: 'image/jpeg',
      });
      const mediaId = String(((await response.json()) as { id: string }).id);
      const composite = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
        slides: [
          { index: 0, mediaId, caption: 'The hook' },
          { index: 1, mediaId, caption },
        ],
      });
      expect(composite.status).toBe(400);
      expect(composite.body).toMatchObject({
        code: 'invalid_request',
        details: [{ path: ['body', 'slides', 1, 'caption'], message: 'the caption has no visible characters' }],
      });
      const generate = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
        platformIds: [platform._id],
        slides: slides(caption),
        mode: 'draft',
        settings: DIRECT,
      });
      expect(generate.status).toBe(400);
      expect(generate.body.details).toEqual([
        { path: ['body', 'slides', 0, 'caption'], message: 'the caption has no visible characters' },
      ]);
      const client = await mcp(tenant.apiKey);
      const tool = toolError(
        (await client.callTool({
          name: 'composite_slides',
          arguments: { slides: [{ index: 0, mediaId, caption }] },
        })) as CallToolResult,
      );
      expect(tool.details).toEqual([
        { path: ['slides', 0, 'caption'], message: 'the caption has no visible characters' },
      ]);
      await expectNothingSpent(tenant);
    },
  );

  it('draws a caption no font can draw (a Unicode tag) as no text rather than failing', async () => {
    const { tenant } = await creatorTenant(stack);
    const response = await upload(stack.server, tenant.apiKey, {
      bytes: await makeJpeg(1024, 1536),
      name: 'p.jpg',
      type: 'image/jpeg',
    });
    const mediaId = String(((await response.json()) as { id: string }).id);
    const composite = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      slides: [{ index: 0, mediaId, caption: '\u{E0020}' }],
    });
    expect(composite.status).toBe(201);
  });

  it('states the rule in the published schema as a pattern that agrees with the check', async () => {
    const document = (await (await stack.server.request('/public/v1/openapi.json')).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const text = JSON.stringify(document);
    // The fields that must show something (names elsewhere state a looser not-blank pattern).
    const patterns = [...text.matchAll(/"(?:caption|topic|imagePrompt)":\{[^{}]*?"pattern":"(\[\^[^"]*\])"/g)].map(
      (match) => JSON.parse(`"${match[1]}"`) as string,
    );
    // Composite and generate captions, the topic, given image prompts.
    expect(patterns.length).toBeGreaterThanOrEqual(4);
    for (const source of patterns) {
      const visible = new RegExp(source);
      for (const caption of INVISIBLE) expect(visible.test(caption)).toBe(false);
      expect(visible.test('🔥')).toBe(true);
      expect(visible.test(' a ')).toBe(true);
    }
  });
});
