import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ENTRY } from '../support/spawn.js';

// How a worker's log reads: lines for a person at a terminal (or LOG_FORMAT=pretty), JSON for pipes.
const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-logs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a worker, returns its stdout up to the line saying it runs, then stops it. */
async function workerStartLog(extra: Record<string, string>): Promise<string> {
  const { MONGODB_URI: _ignored, ...base } = process.env;
  const child = spawn(process.execPath, [ENTRY, 'serve', '--role', 'worker'], {
    env: {
      ...base,
      MONGODB_URI: inject('mongoUri'),
      MONGODB_DB: `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
      DATA_DIR: path.join(dir, randomUUID()),
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      TIKTOK_CLIENT_KEY: 'k',
      TIKTOK_CLIENT_SECRET: 's',
      OPENAI_API_KEY: 'sk-test',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start line in: ${out}`)), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Postdeck worker is running')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return out;
}

describe('log lines', { timeout: 120_000 }, () => {
  it('are JSON when stdout is not a terminal, and readable lines with LOG_FORMAT=pretty', async () => {
    const json = (await workerStartLog({})).split('\n').find((line) => line.includes('Postdeck worker is running'))!;
    expect(JSON.parse(json)).toMatchObject({ level: 30, msg: 'Postdeck worker is running', roles: ['worker'] });

    const pretty = (await workerStartLog({ LOG_FORMAT: 'pretty' }))
      .split('\n')
      .find((line) => line.includes('Postdeck worker is running'))!;
    expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: Postdeck worker is running/);
    expect(() => JSON.parse(pretty) as unknown).toThrow();
  });
});
