import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openCore, type Core } from '../../src/app/main.js';
import { TIKTOK_CALLBACK_PATH } from '../../src/app/tiktok-setup.js';
import { loadConfig } from '../../src/config.js';
import { startOpenAiEmulator, type RunningOpenAiEmulator } from '../../src/emulators/openai/server.js';
import { createLogger } from '../../src/logger.js';
import { buildTenant } from '../support/factories.js';
import { connectAccount, systemScope } from '../platforms/support.js';
import { DIRECT } from '../support/posts.js';
import { lapseLocks, locksLeftBehind, workerRunning } from '../support/dead-locks.js';
import { freePort, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

// Real server processes on one database: two API processes and a worker, spawned as `npm start` runs them.
const PUBLIC_URL = 'http://127.0.0.1:9';
let f: TikTokFixture;
let openai: RunningOpenAiEmulator;
let dir: string;
let env: Record<string, string>;
let core: Core;
let apis: string[];
const processes: SpawnedPostdeck[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-processes-'));
  [f, openai] = await Promise.all([
    startTikTokFixture({ redirectUris: [`${PUBLIC_URL}${TIKTOK_CALLBACK_PATH}`] }),
    startOpenAiEmulator(),
  ]);
  const plans = path.join(dir, 'plans.json');
  writeFileSync(
    plans,
    JSON.stringify({
      free: { captionCredits: 30, imageCredits: 0, monthlyPosts: 30 },
      creator: { captionCredits: 10, imageCredits: 20, monthlyPosts: 10 },
      studio: { captionCredits: 30, imageCredits: 43, monthlyPosts: 30 },
    }),
  );
  env = {
    MONGODB_URI: inject('mongoUri'),
    MONGODB_DB: `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    DATA_DIR: path.join(dir, 'data'),
    PUBLIC_URL,
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    POSTDECK_PLANS_FILE: plans,
    OPENAI_API_KEY: 'sk-test-processes',
    OPENAI_BASE_URL: openai.baseUrl,
    AI_IMAGE_CONCURRENCY: '2',
    TIKTOK_CLIENT_KEY: f.config.clientKey,
    TIKTOK_CLIENT_SECRET: f.config.clientSecret,
    TIKTOK_AUTH_BASE_URL: f.emulator.url,
    TIKTOK_API_BASE_URL: f.emulator.url,
    JOB_POLL_INTERVAL_MS: '200',
    LOG_LEVEL: 'info',
  };
  // This process's core shares the database and keys with the spawned ones (it never runs jobs).
  core = await openCore(loadConfig(env, { cwd: dir }), createLogger({ level: 'silent' }));
  apis = [];
  for (const name of ['api-1', 'api-2']) {
    const port = await freePort();
    processes.push(spawnPostdeck(`slides-${name}`, ['serve', '--role', 'api'], { ...env, PORT: String(port) }));
    apis.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(apis.map((api) => waitForOk(`${api}/healthz`, 120_000)));
}, 180_000);

afterAll(async () => {
  for (const spawned of processes) if (spawned.child.exitCode === null) spawned.child.kill('SIGTERM');
  await Promise.all(processes.map((spawned) => spawned.exited));
  await core.close();
  await Promise.all([openai.stop(), f.emulator.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

async function api(n: number, apiKey: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${apis[n % apis.length]}/public/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function startWorker(name: string): SpawnedPostdeck {
  const worker = spawnPostdeck(`slides-${name}`, ['serve', '--role', 'worker'], { ...env, PORT: '0' });
  processes.push(worker);
  return worker;
}

describe('AI slides across server processes on one database', () => {
  it('spends exactly the allowance of 30 under 100 concurrent caption calls through two processes', async () => {
    const tenant = await buildTenant(core.deps, { plan: 'free' });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        api(n, tenant.apiKey, 'POST', '/slides/caption', { topic: 'race', slideCount: 3 }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(30);
    expect(statuses.filter((status) => status === 402)).toHaveLength(70);
    const usage = (await api(0, tenant.apiKey, 'GET', '/usage')).body as Record<string, { used: number }>;
    expect(usage.captionCredits?.used).toBe(30);
    expect(usage.imageCredits?.used).toBe(0);
    // The free plan has no image credits: generate is refused before any caption work.
    const platform = await connectAccount(core.deps, systemScope(tenant), (await f.createAccount()).openId);
    const refused = await api(1, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      topic: 'no images',
      mode: 'draft',
      settings: DIRECT,
    });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('ai_image_limit_reached');
    const after = (await api(0, tenant.apiKey, 'GET', '/usage')).body as Record<string, { used: number }>;
    expect(after.captionCredits?.used).toBe(30);
  }, 120_000);

  it('finishes a job once when its worker is SIGKILLed mid-job and another takes over', async () => {
    const tenant = await buildTenant(core.deps, { plan: 'creator' });
    const platform = await connectAccount(core.deps, systemScope(tenant), (await f.createAccount()).openId);
    // Slow images (2 at a time, 10 s each): once 2 slides are drawn the job has 20 s of drawing
    // left, so it is still drawing when its worker dies, however slowly this test reads it.
    openai.control.setLatency({ imagesMs: 10_000 });
    const first = startWorker('worker-1');
    const submitted = await api(0, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      topic: 'a worker that dies',
      slideCount: 6,
      mode: 'draft',
      settings: DIRECT,
    });
    expect(submitted.status).toBe(202);
    const jobId = submitted.body.jobId as string;
    const read = async () => (await api(1, tenant.apiKey, 'GET', `/slides/generate/${jobId}`)).body;
    let job = await read();
    for (let i = 0; i < 2_400 && !(Number(job.completed) >= 2); i++) {
      await sleep(50);
      job = await read();
    }
    expect(job.status).toBe('PROCESSING');
    expect(Number(job.completed)).toBeLessThan(6);
    first.child.kill('SIGKILL');
    await first.exited;
    openai.control.setLatency({ imagesMs: 200 });

    // The dead worker's lock lapses (its 30 s go by at once, once the next worker polls); that worker then
    // resumes the job.
    const held = await locksLeftBehind(core.database.db, 'generate-slideshow');
    const second = startWorker('worker-2');
    await workerRunning(second);
    await lapseLocks(core.database.db, held);
    const seen: number[] = [];
    for (let i = 0; i < 900 && job.status !== 'DONE' && job.status !== 'FAILED'; i++) {
      await sleep(100);
      job = await read();
      seen.push(Number(job.completed));
    }
    expect(job.status).toBe('DONE');
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const usage = (await api(0, tenant.apiKey, 'GET', '/usage')).body as Record<string, { used: number }>;
    expect(usage.captionCredits?.used).toBe(1);
    expect(usage.imageCredits?.used).toBe(6);
    const posts = await core.deps.db.posts.find({ workspaceId: tenant.workspaceId }).toArray();
    expect(posts).toHaveLength(1);
    const stored = await core.deps.db.generationJobs.findOne({ _id: jobId });
    expect(posts[0]?.mediaIds).toEqual(stored?.slides.map((slide) => slide.compositeMediaId));
    expect(posts[0]?.groupId).toBe(job.postGroupId);
    // Stopped, so the next test's SIGKILLed worker is the only one holding locks.
    second.child.kill('SIGTERM');
    await second.exited;
  }, 300_000);

  it('reserves at submit through two processes: 14 of 20 3-slide jobs against 43 credits, all DONE across a SIGKILLed worker', async () => {
    const tenant = await buildTenant(core.deps, { plan: 'studio' });
    const platform = await connectAccount(core.deps, systemScope(tenant), (await f.createAccount()).openId);
    // 3-slide jobs against 43 credits leave one credit over as 10-slide jobs against 141 do, with under a
    // third of the drawing; test/slides/reservation.test.ts races the 10-slide jobs in one process.
    openai.control.setLatency({ imagesMs: 1_000 });
    const first = startWorker('reserve-worker-1');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        api(n, tenant.apiKey, 'POST', '/slides/generate', {
          platformIds: [platform._id],
          slides: Array.from({ length: 3 }, (_, index) => ({
            index,
            caption: `Job ${n} slide ${index}`,
            imagePrompt: `a harbour at dusk, boat ${n}, view ${index}`,
          })),
          mode: 'draft',
          settings: DIRECT,
        }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(14);
    expect(answers.filter((answer) => answer.status === 402).map((answer) => answer.body.code)).toEqual(
      Array(6).fill('ai_image_limit_reached'),
    );
    const jobIds = answers.filter((answer) => answer.status === 202).map((answer) => String(answer.body.jobId));
    const read = async (jobId: string) => (await api(1, tenant.apiKey, 'GET', `/slides/generate/${jobId}`)).body;
    // The worker dies while jobs are drawing.
    for (let i = 0; i < 1_200; i++) {
      const jobs = await Promise.all(jobIds.map(read));
      if (jobs.some((job) => Number(job.completed) >= 2)) break;
      await sleep(100);
    }
    expect((await Promise.all(jobIds.map(read))).some((job) => job.status !== 'DONE')).toBe(true);
    first.child.kill('SIGKILL');
    await first.exited;
    openai.control.setLatency({ imagesMs: 0 });
    const held = await locksLeftBehind(core.database.db, 'generate-slideshow');
    await workerRunning(startWorker('reserve-worker-2'));
    await lapseLocks(core.database.db, held);
    let jobs: Record<string, unknown>[] = [];
    for (let i = 0; i < 3_000; i++) {
      jobs = await Promise.all(jobIds.map(read));
      if (jobs.every((job) => job.status === 'DONE' || job.status === 'FAILED')) break;
      await sleep(200);
    }
    expect(jobs.map((job) => `${String(job.status)} ${String(job.error)}`)).toEqual(Array(14).fill('DONE null'));
    const posts = await core.deps.db.posts.find({ workspaceId: tenant.workspaceId }).toArray();
    expect(posts).toHaveLength(14);
    const units = await core.deps.db.ledger.find({ pool: `image:${tenant.accountId}` }).toArray();
    const charged = new Set(units.map((unit) => unit.ref.split('#')[0]));
    expect([...charged].sort()).toEqual([...jobIds].sort());
    const usage = (await api(0, tenant.apiKey, 'GET', '/usage')).body as Record<string, { used: number }>;
    expect(usage.imageCredits?.used).toBe(42);
    expect(usage.imageCredits?.used).toBe(posts.reduce((sum, post) => sum + post.mediaIds.length, 0));
  }, 600_000);
});
