import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiStack, type AiStack } from '../support/ai.js';
import { buildTenant } from '../support/factories.js';
import { call, detailPaths } from '../support/posts.js';

let stack: AiStack;
beforeAll(async () => {
  stack = await startAiStack({
    worker: false,
    plans: {
      free: { captionCredits: 30, imageCredits: 0, monthlyPosts: 30 },
      creator: { captionCredits: 5, imageCredits: 5, monthlyPosts: 5 },
    },
  });
});
afterAll(() => stack.stop());

const caption = (apiKey: string | undefined, body: unknown) =>
  call(stack.server, apiKey, 'POST', '/slides/caption', body);
const usage = async (apiKey: string) =>
  (await call(stack.server, apiKey, 'GET', '/usage')).body as Record<
    string,
    { used: number; allowance: number; resetsAt: string }
  >;

describe('POST /public/v1/slides/caption', () => {
  it('writes the hook and one caption per slide in the requested language, spending one caption credit', async () => {
    const tenant = await buildTenant(stack.t.deps);
    const answer = await caption(tenant.apiKey, {
      topic: 'cold brew coffee',
      slideCount: 4,
      language: 'ja',
      imagePrompt: true,
    });
    expect(answer.status).toBe(200);
    const slides = answer.body.slides as { index: number; caption: string; imagePrompt?: string }[];
    expect(slides.map((slide) => slide.index)).toEqual([0, 1, 2, 3]);
    expect(slides[0]?.caption).toMatch(/[\u3040-\u30ff]/u);
    expect(slides.every((slide) => (slide.imagePrompt ?? '').includes('cold brew coffee'))).toBe(true);
    expect(typeof answer.body.caption).toBe('string');
    const used = await usage(tenant.apiKey);
    expect(used.captionCredits?.used).toBe(1);
    expect(used.imageCredits?.used).toBe(0);
  });

  it('defaults to 6 slides, the workspace language and no image prompts', async () => {
    const tenant = await buildTenant(stack.t.deps);
    const answer = await caption(tenant.apiKey, { topic: 'morning habits' });
    const slides = answer.body.slides as Record<string, unknown>[];
    expect(slides).toHaveLength(6);
    expect(slides.some((slide) => 'imagePrompt' in slide)).toBe(false);
    expect(String(slides[0]?.caption)).toContain('morning habits');
  });

  it.each([
    [{ topic: '' }, ['body', 'topic']],
    [{ topic: 'x'.repeat(501) }, ['body', 'topic']],
    [{ topic: 'ok', slideCount: 2 }, ['body', 'slideCount']],
    [{ topic: 'ok', slideCount: 11 }, ['body', 'slideCount']],
    [{ topic: 'ok', slideLength: 'huge' }, ['body', 'slideLength']],
    [{ topic: 'ok', language: 'english please' }, ['body', 'language']],
    [{ topic: 'ok', imagePrompt: 'yes' }, ['body', 'imagePrompt']],
    [{}, ['body', 'topic']],
  ])('refuses %j with invalid_request at the field', async (body, path) => {
    const tenant = await buildTenant(stack.t.deps);
    const answer = await caption(tenant.apiKey, body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('invalid_request');
    expect(detailPaths(answer.body)).toContainEqual(path);
    expect((await usage(tenant.apiKey)).captionCredits?.used).toBe(0);
  });

  it('refuses a system prompt or knowledge base in the request, saying they are workspace settings', async () => {
    const tenant = await buildTenant(stack.t.deps);
    const answer = await caption(tenant.apiKey, { topic: 'ok', systemPrompt: 'be rude', knowledgeBase: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('invalid_request');
    expect(JSON.stringify(answer.body.details)).toMatch(/system prompt and the knowledge base cannot be sent/);
  });

  it('answers missing_api_key and invalid_api_key', async () => {
    expect((await caption(undefined, { topic: 'ok' })).body.code).toBe('missing_api_key');
    expect((await caption(`service_sk_${'a'.repeat(43)}`, { topic: 'ok' })).body.code).toBe('invalid_api_key');
  });

  it('spends exactly the allowance under 100 concurrent calls, leaving the image pool untouched', async () => {
    const tenant = await buildTenant(stack.t.deps);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => caption(tenant.apiKey, { topic: 'burst', slideCount: 3 })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(30);
    expect(statuses.filter((status) => status === 402)).toHaveLength(70);
    expect(new Set(answers.filter((a) => a.status === 402).map((a) => a.body.code))).toEqual(
      new Set(['ai_credit_limit_reached']),
    );
    const used = await usage(tenant.apiKey);
    expect(used.captionCredits).toMatchObject({ used: 30, allowance: 30 });
    expect(used.imageCredits?.used).toBe(0);
  }, 120_000);

  it('gives the credit back when the provider fails, and says what happened', async () => {
    const tenant = await buildTenant(stack.t.deps);
    stack.openai.control.faults.add({ endpoint: 'chat', kind: 'insufficient_quota', times: 1, retryAfterSeconds: 1 });
    const answer = await caption(tenant.apiKey, { topic: 'quota' });
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('ai_quota_exhausted');
    expect((await usage(tenant.apiKey)).captionCredits?.used).toBe(0);
  });
});

describe('GET /public/v1/usage', () => {
  it('shows used, allowance and the reset time of each pool for the account', async () => {
    const tenant = await buildTenant(stack.t.deps, { plan: 'creator' });
    const used = await usage(tenant.apiKey);
    expect(used.captionCredits).toMatchObject({ used: 0, allowance: 5 });
    expect(used.imageCredits).toMatchObject({ used: 0, allowance: 5 });
    expect(used.monthlyPosts).toMatchObject({ used: 0, allowance: 5 });
    const now = new Date();
    expect(used.captionCredits?.resetsAt).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    );
  });

  it('needs an API key', async () => {
    expect((await call(stack.server, undefined, 'GET', '/usage')).body.code).toBe('missing_api_key');
  });
});
