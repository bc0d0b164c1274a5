import { describe, expect, inject, it } from 'vitest';
import { runDbRestart } from '../../bench/support/db-restart-run.js';

// The short version of bench:db-restart (bench/README.md), on a database server of its own (stopping
// the shared one would break the other files): stopped for 15 s, longer than the driver's 10 s server
// selection so queries fail, while posts publish and a slideshow is generated, then started again on
// its port. Conditions are waited for with generous bounds, never timed.
describe('the database going away for 15 s', { timeout: 900_000 }, () => {
  it('keeps every process up, says so on /readyz, publishes nothing twice, settles everything, and logs a few lines', async () => {
    const printed: string[] = [];
    const report = await runDbRestart({
      downMs: 15_000,
      accounts: 2,
      postsPerAccount: 3,
      dueWindowMs: 10_000,
      leadMs: 8_000,
      generations: 1,
      slides: 3,
      modelLatencyMs: 1_000,
      workers: 1,
      settleTimeoutMs: 300_000,
      startTimeoutMs: 180_000,
      floodPerSecond: 10,
      maxStackTraces: 1,
      pollIntervalMs: 1_000,
      ferretCacheDir: inject('ferretCacheDir'),
      print: (label, value) => printed.push(`${label.padEnd(46)} ${value}`),
    });
    const context = printed.join('\n');

    expect([...report.exits.values()], context).toEqual(['running', 'running']);
    expect(report.readyDownAfterMs, context).toBeDefined();
    expect(report.readyBackAfterMs, context).toBeDefined();
    expect(report.answerDuringOutage, context).toBe('503 database_unavailable, Retry-After 5');
    // Every post published, late but once: the outage is no reason to fail one (test/publishing/db-unreachable.test.ts).
    expect(report.maxPublishesPerPost, context).toBe(1);
    expect(report.postStates, context).toBe('PUBLISHED 6');
    expect(report.generationStates, context).toMatch(/^(DONE|FAILED) 1$/);
    expect(report.settleMs, context).toBeDefined();
    for (const stretch of report.logs.values()) {
      expect(stretch.withStack, context).toBeLessThanOrEqual(1);
      expect(stretch.lines, context).toBeLessThanOrEqual(20);
    }
    expect(report.problems, context).toEqual([]);
  });
});
