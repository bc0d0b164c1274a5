import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner } from '../../src/core/jobs/job-runner.js';
import { createLogger } from '../../src/logger.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';

// Shutting a worker down the way the server does: stop the jobs, then close the database.
let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

describe('a worker shutting down', () => {
  it('stops looking for due tasks before its database closes, so nothing fails on the way out', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void lines.push(line) } });
    for (let round = 0; round < 10; round++) {
      const client = await new MongoClient(t.uri).connect();
      // A 1 ms poll keeps a look for due tasks in flight almost all the time.
      const runner = createJobRunner({
        db: client.db(t.dbName),
        deps: { ...t.deps, logger },
        definitions: [],
        pollIntervalMs: 1,
        concurrency: 1,
      });
      await runner.startProcessing();
      await sleep(100 + round * 7);
      await runner.stop(1_000);
      await client.close();
    }
    await sleep(300);
    expect(lines.filter((line) => line.includes('due tasks'))).toEqual([]);
    expect(lines).toEqual([]);
  });
});
