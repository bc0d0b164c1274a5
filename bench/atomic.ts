/**
 * What the atomicity rule costs: a claim (lease) and an allowance spend, each against a plain
 * insertOne measured in the same run on the same database (the baseline), sequentially and
 * under contention. Runs on the embedded database (FerretDB unless a mongod is available) or on
 * MONGODB_URI. Usage: npm run bench
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { collectionsOf, ensureIndexes } from '../src/core/db/collections.js';
import { claimLease } from '../src/core/db/leases.js';
import { spendFromAllowance } from '../src/core/db/allowance.js';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded/index.js';
import { createLogger } from '../src/logger.js';

const N = 300;

async function time(label: string, run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  console.log(`${label.padEnd(46)} ${ms.toFixed(0).padStart(7)} ms`);
  return ms;
}

async function main(): Promise<void> {
  let embedded: EmbeddedDatabase | undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-bench-'));
  let uri = process.env.MONGODB_URI;
  if (!uri) {
    embedded = await openEmbeddedDatabase({
      dataDir,
      cacheDir: path.resolve('.cache/ferretdb'),
      logger: createLogger({ level: 'warn', destination: process.stderr }),
    });
    uri = embedded.uri;
  }
  const client = await new MongoClient(uri).connect();
  const db = client.db(`bench_${randomUUID().slice(0, 8)}`);
  await ensureIndexes(db);
  const c = collectionsOf(db);
  console.log(`database: ${embedded?.kind ?? 'MONGODB_URI'}; ${N} operations per row\n`);

  try {
    const baseline = await time('baseline: insertOne, sequential', async () => {
      for (let i = 0; i < N; i++) await db.collection('baseline').insertOne({ _id: randomUUID() as never, i });
    });
    const claim = await time('claimLease (distinct keys), sequential', async () => {
      for (let i = 0; i < N; i++) await claimLease(c, `k${i}`, { ttlMs: 60_000 });
    });
    const spend = await time('spendFromAllowance (allowance 10000), sequential', async () => {
      for (let i = 0; i < N; i++)
        await spendFromAllowance(c, {
          pool: 'p',
          period: 'x',
          allowance: 10_000,
          ref: 'b',
          limitCode: 'post_limit_reached',
        });
    });
    const baselineParallel = await time('baseline: insertOne, all at once', () =>
      Promise.all(
        Array.from({ length: N }, (_, i) => db.collection('baseline2').insertOne({ _id: randomUUID() as never, i })),
      ),
    );
    const contended = await time(`${N} spends at once on an allowance of 50`, () =>
      Promise.allSettled(
        Array.from({ length: N }, () =>
          spendFromAllowance(c, { pool: 'hot', period: 'x', allowance: 50, ref: 'b', limitCode: 'post_limit_reached' }),
        ),
      ),
    );
    console.log('\nratios against the baseline of the same run:');
    console.log(
      `  claimLease      ${(claim / baseline).toFixed(2)}x a plain insert (${((claim / N) * 1000).toFixed(0)} µs each)`,
    );
    console.log(
      `  spend           ${(spend / baseline).toFixed(2)}x a plain insert (${((spend / N) * 1000).toFixed(0)} µs each)`,
    );
    console.log(`  contended spend ${(contended / baselineParallel).toFixed(2)}x ${N} parallel plain inserts`);
  } finally {
    await db.dropDatabase();
    await client.close();
    await embedded?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
