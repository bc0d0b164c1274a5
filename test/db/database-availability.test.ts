import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isDatabaseUnreachable, logFailure } from '../../src/core/db/unreachable.js';
import { toAppError } from '../../src/core/errors.js';
import { watchDatabaseAvailability } from '../../src/db/availability.js';
import { ensureFerretBinary } from '../../src/db/embedded/build.js';
import { startFerret } from '../../src/db/embedded/ferret.js';
import type { StartedDatabase } from '../../src/db/embedded/types.js';
import { createLogger } from '../../src/logger.js';
import { freePort } from '../../bench/support/util.js';

// A FerretDB of this file's own, stopped and started again on its port: the shared test database
// must stay up for the other files.
let dataDir: string;
let binary: string;
let port: number;
let server: StartedDatabase | undefined;
let client: MongoClient;
interface LogLine {
  level: number;
  msg: string;
  err?: unknown;
  reason?: string;
}
const lines: LogLine[] = [];
const logger = createLogger({
  level: 'debug',
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  }),
});
const quiet = createLogger({ level: 'warn', destination: process.stderr });

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-availability-'));
  binary = await ensureFerretBinary(inject('ferretCacheDir'), quiet);
  port = await freePort();
  server = await startFerret({ binary, dataDir, logger: quiet, port });
  client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 1_000 });
  await client.connect();
}, 120_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await sleep(50);
  expect(condition()).toBe(true);
}

const named = (msg: string) => lines.filter((line) => line.msg === msg);

describe('the database going away', { timeout: 180_000 }, () => {
  it('is logged once when it goes, again while it stays away, and once when it is back', async () => {
    const watch = watchDatabaseAvailability(client, logger, 1_000);
    try {
      await server?.stop();
      server = undefined;
      // A query notices; the driver's monitor would within its heartbeat. On a busy machine the first
      // pings after the stop may still meet the server on its way out (answered, or a bare EPIPE from a
      // socket it is closing), so ask until a query fails as an unreachable database does.
      let failure: unknown;
      const asked = Date.now();
      while (!isDatabaseUnreachable(failure) && Date.now() - asked < 60_000) {
        failure = await client
          .db('x')
          .command({ ping: 1 })
          .then(() => undefined)
          .catch((error: unknown) => error ?? 'rejected without an error');
        if (!isDatabaseUnreachable(failure)) await sleep(200);
      }
      expect(isDatabaseUnreachable(failure), String(failure)).toBe(true);
      await until(() => named('database unreachable; work that needs it waits and retries').length === 1);
      await until(() => named('database still unreachable').length >= 2);
      expect(named('database unreachable; work that needs it waits and retries')).toHaveLength(1);

      server = await startFerret({ binary, dataDir, logger: quiet, port });
      await client.db('x').command({ ping: 1 });
      await until(() => named('database reachable again').length === 1);
      const reminders = named('database still unreachable').length;
      await sleep(2_500);
      expect(named('database still unreachable')).toHaveLength(reminders);
      expect(named('database unreachable; work that needs it waits and retries')).toHaveLength(1);
    } finally {
      watch.stop();
    }
  });

  it('turns a failure the unreachable database caused into one debug line without a stack', async () => {
    await server?.stop();
    server = undefined;
    const failure = await client
      .db('x')
      .collection('c')
      .findOne({})
      .catch((error: unknown) => error);
    server = await startFerret({ binary, dataDir, logger: quiet, port });
    lines.length = 0;

    logFailure(logger, 'error', new Error('wrapped', { cause: failure }), { job: 'j' }, 'looking failed');
    logFailure(logger, 'warn', new TypeError('a bug'), { job: 'j' }, 'looking failed');
    logFailure(logger, 'warn', new TypeError('a bug'), { job: 'j' }, 'task failed', { stack: false });

    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ level: 20, msg: 'looking failed', job: 'j' });
    expect(lines[0]?.err).toBeUndefined();
    expect(lines[1]).toMatchObject({ level: 40, msg: 'looking failed', err: { message: 'a bug' } });
    expect(JSON.stringify(lines[1]?.err)).toContain('TypeError: a bug\\n    at ');
    expect(lines[2]).toMatchObject({ level: 40, msg: 'task failed', reason: 'a bug' });
    expect(lines[2]?.err).toBeUndefined();

    // What a caller is told: worth retrying in a few seconds, not a bug of ours.
    lines.length = 0;
    const told = toAppError(failure, logger, 'request');
    expect(told).toMatchObject({ code: 'database_unavailable', retryAfterSeconds: 5 });
    expect(told.message).toContain('cannot reach its database');
    expect(toAppError(new TypeError('a bug'), logger, 'request').code).toBe('internal_error');
    expect(lines.map((line) => line.level)).toEqual([20, 50]);
  });
});
