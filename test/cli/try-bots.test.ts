import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runPostdeck } from '../support/spawn.js';

// What `postdeck try-bots` refuses before it starts anything (the trial itself: test/browser/bots-trial.test.ts).
let dataDir: string;
let port: number;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-try-bots-'));
  port = await freePort();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function failure(env: Record<string, string>): Promise<string> {
  const error = await runPostdeck(['try-bots'], { PORT: String(port), DATA_DIR: dataDir, ...env }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error).toBeInstanceOf(Error);
  return error!.message;
}

describe('postdeck try-bots', { timeout: 60_000 }, () => {
  it('refuses to replace Slack or Discord settings the install already has', async () => {
    const slack = await failure({ SLACK_SIGNING_SECRET: 'a-real-secret', SLACK_BOT_TOKEN: 'xoxb-real-token' });
    expect(slack).toContain('this install has its own Slack or Discord settings');
    const discord = await failure({
      DISCORD_APPLICATION_ID: '123456789012345678',
      DISCORD_PUBLIC_KEY: 'ab'.repeat(32),
      DISCORD_BOT_TOKEN: 'real-bot-token',
    });
    expect(discord).toContain('unset them to try the bots here');
  });

  it('refuses, naming it, while a Postdeck already serves this PORT and DATA_DIR', async () => {
    // The lock `postdeck serve` holds while it runs, held here by this (live) test process.
    mkdirSync(dataDir, { recursive: true });
    const record = { pid: process.pid, url: `http://localhost:${port}`, bootedAt: Date.now() - os.uptime() * 1000 };
    writeFileSync(path.join(dataDir, `serve-${port}.json`), JSON.stringify(record));
    const message = await failure({});
    expect(message).toContain(
      `Postdeck already runs at http://localhost:${port} with this DATA_DIR (pid ${process.pid})`,
    );
  });
});
