import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultKind } from '../../src/emulators/openai/faults.js';
import { startAiStack, type AiStack } from '../support/ai.js';
import { buildTenant } from '../support/factories.js';
import { call } from '../support/posts.js';

// Three tries per call (the stack's setting), so a fault hitting three requests outlasts the retries.
const ATTEMPTS = 3;

let stack: AiStack;
beforeAll(async () => {
  stack = await startAiStack({ worker: false, ai: { textTimeoutMs: 400, attempts: ATTEMPTS } });
});
afterAll(() => stack.stop());

/** One caption call whose topic only this case uses, with `times` requests hit by `kind`. */
async function captionWith(kind: FaultKind, times: number) {
  const tenant = await buildTenant(stack.t.deps);
  const topic = `fault ${kind} ${randomUUID().slice(0, 8)}`;
  stack.openai.control.faults.add({ endpoint: 'chat', kind, times, match: topic, retryAfterSeconds: 1 });
  const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/caption', { topic, slideCount: 3 });
  const requests = stack.openai.control
    .requests()
    .filter((request) => request.endpoint === 'chat' && request.prompt.includes(topic));
  const usage = await call(stack.server, tenant.apiKey, 'GET', '/usage');
  stack.openai.control.faults.clear();
  return { answer, requests, creditsUsed: (usage.body.captionCredits as { used: number }).used };
}

describe('what each provider failure becomes', () => {
  it.each(['rate_limit', 'server_error', 'timeout', 'malformed_json', 'schema_violation'] as const)(
    'retries one %s and succeeds, spending one credit',
    async (kind) => {
      const { answer, requests, creditsUsed } = await captionWith(kind, 1);
      expect(answer.status).toBe(200);
      expect(answer.body.slides).toHaveLength(3);
      expect(requests).toHaveLength(2);
      expect(creditsUsed).toBe(1);
    },
  );

  it('waits out retry-after before retrying a rate limit', async () => {
    const { requests } = await captionWith('rate_limit', 1);
    const [first, second] = requests;
    expect(second!.startedAt - first!.finishedAt).toBeGreaterThanOrEqual(950);
  });

  it('answers 429 rate_limited with Retry-After once the retries are used up, refunding the credit', async () => {
    const { answer, requests, creditsUsed } = await captionWith('rate_limit', ATTEMPTS);
    expect(answer.status).toBe(429);
    expect(answer.body.code).toBe('rate_limited');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(requests).toHaveLength(ATTEMPTS);
    expect(creditsUsed).toBe(0);
  });

  it.each(['server_error', 'timeout', 'malformed_json', 'schema_violation'] as const)(
    'answers 502 provider_error when %s outlasts the retries, refunding the credit',
    async (kind) => {
      const { answer, requests, creditsUsed } = await captionWith(kind, ATTEMPTS);
      expect(answer.status).toBe(502);
      expect(answer.body.code).toBe('provider_error');
      expect(requests).toHaveLength(ATTEMPTS);
      expect(creditsUsed).toBe(0);
    },
  );

  it('does not retry an exhausted provider quota and says the operator must act (503 ai_quota_exhausted)', async () => {
    const { answer, requests, creditsUsed } = await captionWith('insufficient_quota', ATTEMPTS);
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('ai_quota_exhausted');
    expect(answer.body.message).toMatch(/quota/i);
    expect(requests).toHaveLength(1);
    expect(creditsUsed).toBe(0);
  });

  it.each([
    ['refusal', /declined/i],
    ['moderation_blocked', /safety/i],
  ] as const)('answers 422 content_blocked for a %s, in plain words, without retrying', async (kind, words) => {
    const { answer, requests, creditsUsed } = await captionWith(kind, ATTEMPTS);
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('content_blocked');
    expect(answer.body.message).toMatch(words);
    expect(requests).toHaveLength(1);
    expect(creditsUsed).toBe(0);
  });
});
