import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { heartbeatPath, startWorkerHeartbeat } from '../../src/app/worker-heartbeat.js';
import { createLogger } from '../../src/logger.js';
import { runPostdeck, spawnPostdeck, type SpawnedPostdeck } from '../support/spawn.js';

// The worker serves no HTTP; its health check is `postdeck admin worker-health`, which reads the
// heartbeat the worker writes after each database ping. Run against a real `serve --role worker`.
let dataDir: string;
let env: Record<string, string>;
let worker: SpawnedPostdeck | undefined;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-worker-health-'));
  env = { DATA_DIR: dataDir, FERRETDB_CACHE_DIR: inject('ferretCacheDir'), LOG_LEVEL: 'info' };
});

afterAll(async () => {
  if (worker && worker.child.exitCode === null) {
    worker.child.kill('SIGCONT');
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** `admin worker-health`'s outcome: its stdout, or the error message of a failing run. */
function health(...args: string[]): Promise<{ ok: boolean; text: string }> {
  return runPostdeck(['admin', 'worker-health', ...args], env).then(
    (text) => ({ ok: true, text }),
    (error: Error) => ({ ok: false, text: error.message }),
  );
}

describe('postdeck admin worker-health', { timeout: 240_000 }, () => {
  it('fails when no worker runs on this host', async () => {
    const answer = await health();
    expect(answer.ok).toBe(false);
    expect(answer.text).toContain('worker unhealthy: no worker heartbeat');
  });

  it('passes once a worker runs and beats', async () => {
    worker = spawnPostdeck('worker-health-worker', ['serve', '--role', 'worker'], env);
    const deadline = Date.now() + 180_000;
    let answer = await health();
    while (!answer.ok && Date.now() < deadline && worker.child.exitCode === null) {
      await sleep(500);
      answer = await health();
    }
    expect(answer.text).toMatch(new RegExp(`^worker healthy: pid ${worker.child.pid} on \\S+, last beat \\d+ s ago`));
  });

  it('fails for a worker that hangs (its heartbeat goes stale), and passes again when it resumes', async () => {
    worker!.child.kill('SIGSTOP');
    await sleep(1_500);
    const stale = await health('--max-age-ms', '1000');
    worker!.child.kill('SIGCONT');
    expect(stale.ok).toBe(false);
    expect(stale.text).toMatch(/worker unhealthy: the worker \(pid \d+\) last beat \d+ s ago/);
    expect((await health()).ok).toBe(true);
  });

  it('fails once the worker stopped, whose heartbeat it removed', async () => {
    worker!.child.kill('SIGTERM');
    expect(await worker!.exited).toBe(0);
    expect(existsSync(heartbeatPath(dataDir))).toBe(false);
    expect((await health()).text).toContain('no worker heartbeat');
  });

  it('fails for a fresh heartbeat whose process is gone (a killed worker)', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    mkdirSync(path.dirname(heartbeatPath(dataDir)), { recursive: true });
    writeFileSync(
      heartbeatPath(dataDir),
      JSON.stringify({ pid: gone, host: os.hostname(), at: new Date().toISOString() }),
    );
    expect((await health()).text).toContain(`the worker (pid ${gone}) is not running`);
  });

  it('refuses a bad --max-age-ms', async () => {
    expect((await health('--max-age-ms', 'soon')).text).toContain('--max-age-ms must be a positive whole number');
  });
});

describe('the worker heartbeat', () => {
  const logger = createLogger({ level: 'silent', destination: process.stderr });

  it('is written only while the database answers', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-heartbeat-'));
    try {
      const down = startWorkerHeartbeat(dir, () => Promise.reject(new Error('no database')), logger);
      await sleep(50);
      expect(existsSync(heartbeatPath(dir))).toBe(false);
      down.stop();
      const up = startWorkerHeartbeat(dir, () => Promise.resolve(), logger);
      await sleep(50);
      expect(existsSync(heartbeatPath(dir))).toBe(true);
      up.stop();
      expect(existsSync(heartbeatPath(dir))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
