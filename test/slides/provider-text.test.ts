import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatorTenant, FREE_AND_CREATOR_PLANS, startAiStack, type AiStack } from '../support/ai.js';
import { buildTenant } from '../support/factories.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { call, DIRECT } from '../support/posts.js';

// What the model writes is checked and made well-formed before it is stored or answered.
const ATTEMPTS = 3;
let stack: AiStack;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await startAiStack({
    ai: { attempts: ATTEMPTS },
    plans: FREE_AND_CREATOR_PLANS,
  });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await stack.stop();
});

/** Every string in a JSON value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, child]) => [key, ...strings(child)]);
  }
  return [];
}

/** A JSON text whose strings are all well-formed UTF-16, as strict parsers (serde, Python's MCP SDK) need. */
function expectWellFormedJson(text: string): void {
  expect(text).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
  expect(strings(JSON.parse(text)).filter((each) => !each.isWellFormed())).toEqual([]);
}

const EMOJI_TOPIC = '🔥'.repeat(200);

async function caption(topic: string) {
  const tenant = await buildTenant(stack.t.deps);
  const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/caption', { topic, slideCount: 3 });
  const usage = await call(stack.server, tenant.apiKey, 'GET', '/usage');
  const requests = stack.openai.control
    .requests()
    .filter((request) => request.endpoint === 'chat' && request.prompt.includes(topic));
  return { answer, requests, creditsUsed: (usage.body.captionCredits as { used: number }).used, tenant };
}

describe('a model answer with an invisible caption', () => {
  it('is asked for again, and the visible answer is what the caller gets', async () => {
    const topic = `invisible once ${randomUUID().slice(0, 8)}`;
    stack.openai.control.faults.add({
      endpoint: 'chat',
      kind: 'caption_text',
      text: '\u200b',
      match: topic,
      times: 1,
      retryAfterSeconds: 1,
    });
    const { answer, requests, creditsUsed } = await caption(topic);
    expect(answer.status).toBe(200);
    expect(requests).toHaveLength(2);
    const slides = answer.body.slides as { caption: string }[];
    expect(slides.every((slide) => /[a-z]/i.test(slide.caption))).toBe(true);
    expect(creditsUsed).toBe(1);
  });

  it('is a provider error (502) once the retries are used up, never a 500, and the credit comes back', async () => {
    const topic = `invisible always ${randomUUID().slice(0, 8)}`;
    stack.openai.control.faults.add({
      endpoint: 'chat',
      kind: 'caption_text',
      text: '\u00ad',
      match: topic,
      times: ATTEMPTS,
      retryAfterSeconds: 1,
    });
    const { answer, requests, creditsUsed } = await caption(topic);
    expect(answer.status).toBe(502);
    expect(answer.body.code).toBe('provider_error');
    expect(answer.body.message).toMatch(/no visible characters/);
    expect(requests).toHaveLength(ATTEMPTS);
    expect(creditsUsed).toBe(0);
  });

  it('in a generation job is asked for again and the job ends DONE', async () => {
    const { tenant, platform } = await creatorTenant(stack);
    const topic = `invisible job ${randomUUID().slice(0, 8)}`;
    stack.openai.control.faults.add({
      endpoint: 'chat',
      kind: 'caption_text',
      text: ' \ufeff ',
      match: topic,
      times: 1,
      retryAfterSeconds: 1,
    });
    const accepted = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      topic,
      slideCount: 3,
      mode: 'draft',
      settings: DIRECT,
    });
    expect(accepted.status).toBe(202);
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 600 && job.status !== 'DONE' && job.status !== 'FAILED'; i++) {
      await sleep(100);
      job = (await call(stack.server, tenant.apiKey, 'GET', `/slides/generate/${String(accepted.body.jobId)}`)).body;
    }
    expect(job).toMatchObject({ status: 'DONE', error: null });
  }, 90_000);
});

describe('text cut mid-emoji', () => {
  it('answers a 200-emoji topic with well-formed captions', async () => {
    const { answer } = await caption(EMOJI_TOPIC);
    expect(answer.status).toBe(200);
    expectWellFormedJson(answer.text);
    expect(String(answer.body.caption)).toContain('🔥');
  });

  it('makes a lone surrogate from the model well-formed before answering it', async () => {
    const topic = `lone surrogate ${randomUUID().slice(0, 8)}`;
    stack.openai.control.faults.add({
      endpoint: 'chat',
      kind: 'caption_text',
      text: 'Hook \ud83d',
      match: topic,
      times: 1,
      retryAfterSeconds: 1,
    });
    const { answer, requests } = await caption(topic);
    expect(answer.status).toBe(200);
    expect(requests).toHaveLength(1);
    expectWellFormedJson(answer.text);
    expect((answer.body.slides as { caption: string }[])[0]?.caption).toBe('Hook \ufffd');
  });

  it('answers the generate_captions tool with well-formed text', async () => {
    const tenant = await buildTenant(stack.t.deps);
    const client = await connectMcpOverHttp(stack.server.url, tenant.apiKey);
    clients.push(client);
    const result = (await client.callTool({
      name: 'generate_captions',
      arguments: { topic: EMOJI_TOPIC, slideCount: 3 },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expectWellFormedJson((result.content[0] as { text: string }).text);
    expect(strings(result.structuredContent).filter((each) => !each.isWellFormed())).toEqual([]);
  });

  it('lets the emulator cut a topic by code point', async () => {
    const chat = await fetch(`${stack.openai.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      // One letter first, so 200 UTF-16 units end inside an emoji.
      body: JSON.stringify({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: `a${EMOJI_TOPIC}` }] }),
    });
    const text = await chat.text();
    expectWellFormedJson(text);
  });
});
