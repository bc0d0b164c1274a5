import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob } from '../../src/core/jobs/define-job.js';
import { createJobRunner } from '../../src/core/jobs/job-runner.js';
import { createAiProvider } from '../../src/core/providers/openai/provider.js';
import { startOpenAiEmulator, type RunningOpenAiEmulator } from '../../src/emulators/openai/server.js';
import { createLogger } from '../../src/logger.js';
import { createMetricsRegistry } from '../../src/app/metrics/registry.js';
import { spendCredit } from '../../src/core/credits/credits.js';
import { reserveCredits } from '../../src/core/credits/reserve.js';
import { failPost, markPublished } from '../../src/core/publishing/post-outcome.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import { buildPost } from '../support/posts.js';
import { emulatorAiConfig } from '../support/ai.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { parseExposition, sampleValue, withMetrics } from '../support/metrics.js';

// Counts core reports through its Metrics port: provider calls with their 429s, and jobs by state.
let database: TestDatabase;
let metered: ReturnType<typeof withMetrics>;
let openai: RunningOpenAiEmulator;
beforeAll(async () => {
  database = await openTestDatabase();
  metered = withMetrics(database);
  openai = await startOpenAiEmulator();
});
afterAll(async () => {
  await openai.stop();
  await database.close();
});

async function count(name: string, labels: Record<string, string>): Promise<number> {
  const { text } = await metered.registry.exposition();
  return sampleValue(await parseExposition(text), name, labels);
}

describe('core counts', { timeout: 60_000 }, () => {
  it('every OpenAI attempt by endpoint and status: a 429 retried, then the answer', async () => {
    const fault = await fetch(`${openai.url}/__control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: 'images', kind: 'rate_limit', retryAfterSeconds: 0 }),
    });
    expect(fault.ok).toBe(true);
    const provider = createAiProvider(emulatorAiConfig(openai), createLogger({ level: 'silent' }), metered.registry);
    const image = await provider.image({ purpose: 'metrics test', prompt: 'a lighthouse', size: '1024x1024' });
    expect(image.length).toBeGreaterThan(0);
    const images = { provider: 'openai', endpoint: '/images/generations' };
    expect(await count('postdeck_provider_requests_total', { ...images, status: '429' })).toBe(1);
    expect(await count('postdeck_provider_requests_total', { ...images, status: '200' })).toBe(1);
  });

  it('jobs by name and end state, on the due-task lane', async () => {
    const succeeds = defineJob({
      name: 'metrics-test.succeeds',
      data: z.object({}),
      queue: 'due-tasks',
      perform: async () => {},
    });
    const fails = defineJob({
      name: 'metrics-test.fails',
      data: z.object({}),
      queue: 'due-tasks',
      retry: { maxRetries: 0, delayMs: 10, maxDelayMs: 10 },
      perform: () => Promise.reject(new Error('fails on purpose')),
    });
    const { jobs: _queue, ...deps } = metered.t.deps;
    const runner = createJobRunner({
      db: database.db,
      deps,
      definitions: [succeeds, fails],
      pollIntervalMs: 100,
      concurrency: 2,
    });
    try {
      await runner.startProcessing();
      await runner.enqueue(succeeds, {});
      await runner.enqueue(fails, {});
      const deadline = Date.now() + 30_000;
      const done = async () =>
        (await count('postdeck_jobs_total', { name: succeeds.name, state: 'completed' })) === 1 &&
        (await count('postdeck_jobs_total', { name: fails.name, state: 'failed' })) === 1;
      while (!(await done()) && Date.now() < deadline) await sleep(100);
      expect(await count('postdeck_jobs_total', { name: succeeds.name, state: 'completed' })).toBe(1);
      expect(await count('postdeck_jobs_total', { name: fails.name, state: 'failed' })).toBe(1);
      expect(await count('postdeck_jobs_total', { name: succeeds.name, state: 'failed' })).toBe(0);
    } finally {
      await runner.stop(5_000);
    }
  });
});

describe('outcomes counted once', { timeout: 60_000 }, () => {
  it('a post leaving PUBLISHING, counted by the writer that moved it only, under its network', async () => {
    const { deps } = metered.t;
    const { workspaceId } = await buildTenant(deps);
    const instagram = await buildPlatform(deps, workspaceId, { provider: 'instagram' });
    const tiktok = await buildPlatform(deps, workspaceId);
    const published = await buildPost(deps, workspaceId, { state: 'PUBLISHING', platformId: instagram._id });
    const failed = await buildPost(deps, workspaceId, { state: 'PUBLISHING', platformId: tiktok._id });
    const release = { releaseId: 'v-1', releaseUrl: null };
    expect(await markPublished(deps, published, release)).toBe(true);
    // A second run of the same end changes nothing, and counts nothing.
    expect(await markPublished(deps, published, release)).toBe(false);
    await failPost(deps, failed, 'TikTok refused it', { refund: false });
    await failPost(deps, failed, 'TikTok refused it', { refund: false });
    expect(await count('postdeck_publish_outcomes_total', { outcome: 'published' })).toBe(1);
    expect(await count('postdeck_publish_outcomes_total', { outcome: 'failed' })).toBe(1);
    expect(await count('postdeck_publish_outcomes_total', { provider: 'instagram', outcome: 'published' })).toBe(1);
    expect(await count('postdeck_publish_outcomes_total', { provider: 'tiktok', outcome: 'failed' })).toBe(1);
    expect(await count('postdeck_publish_outcomes_total', { provider: 'tiktok', outcome: 'published' })).toBe(0);
  });

  it('credits by pool, in its unit', async () => {
    const { deps } = metered.t;
    const tenant = await buildTenant(deps, { plan: 'creator' });
    const scope = { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' } as const };
    await spendCredit(deps, scope, 'caption', 'metrics-test:caption');
    await reserveCredits(deps, scope, 'image', ['metrics-test:1', 'metrics-test:2', 'metrics-test:3']);
    expect(await count('postdeck_credits_spent_total', { pool: 'caption' })).toBe(1);
    expect(await count('postdeck_credits_spent_total', { pool: 'image' })).toBe(3);
  });
});

describe('while the database does not answer', () => {
  it('its gauges read NaN and the rest of the exposition is still served', async () => {
    const registry = createMetricsRegistry({
      db: database.deps.db,
      ping: () => Promise.reject(new Error('the database is away')),
    });
    registry.toolCall('list_platforms', 'ok');
    const families = await parseExposition((await registry.exposition()).text);
    expect(sampleValue(families, 'postdeck_database_round_trip_seconds', {})).toBeNaN();
    expect(sampleValue(families, 'postdeck_mcp_tool_calls_total', { tool: 'list_platforms' })).toBe(1);
  });
});
