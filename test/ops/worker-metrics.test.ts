import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort, spawnPostdeck, type SpawnedPostdeck } from '../support/spawn.js';
import { parseExposition } from '../support/metrics.js';

// A worker serves no HTTP, so its metrics get a listener of their own on METRICS_PORT.
const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-worker-metrics-'));
const TOKEN = randomBytes(24).toString('hex');
let worker: SpawnedPostdeck | undefined;
afterAll(async () => {
  if (worker && worker.child.exitCode === null) {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

async function waitForOutput(spawned: SpawnedPostdeck, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!spawned.output().includes(text)) {
    if (Date.now() > deadline || spawned.child.exitCode !== null) {
      throw new Error(`no "${text}" in: ${spawned.output()}`);
    }
    await sleep(200);
  }
}

describe('a worker with METRICS_PORT', { timeout: 120_000 }, () => {
  it('serves /metrics on that port, to the bearer of METRICS_TOKEN', async () => {
    const port = await freePort();
    worker = spawnPostdeck('worker-metrics', ['serve', '--role', 'worker'], {
      MONGODB_URI: inject('mongoUri'),
      MONGODB_DB: `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
      DATA_DIR: path.join(dir, 'data'),
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      TIKTOK_CLIENT_KEY: 'k',
      TIKTOK_CLIENT_SECRET: 's',
      OPENAI_API_KEY: 'sk-test',
      LOG_FORMAT: 'json',
      METRICS_PORT: String(port),
      METRICS_TOKEN: TOKEN,
    });
    await waitForOutput(worker, 'Postdeck worker is running', 90_000);
    const url = `http://127.0.0.1:${port}/metrics`;

    expect((await fetch(url)).status).toBe(401);
    const answer = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
    const families = await parseExposition(await answer.text());
    expect(families.postdeck_jobs_total?.type).toBe('counter');
    expect(families.postdeck_database_round_trip_seconds?.type).toBe('gauge');
    expect(families.nodejs_eventloop_lag_seconds?.type).toBe('gauge');
    // Only /metrics: a worker's port is no second API.
    const other = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(other.status).toBe(404);
  });
});
