/**
 * Whether reads and writes by `_id` stay flat as a collection grows: 500 findOne, 500 updateOne and 500
 * conditional updateOne (`_id` beside another key) against a collection of 10,000 documents, each against
 * the same against 100 documents measured
 * in the same run (the baseline). An index search keeps the ratio near 1; a table scan makes it grow
 * with the size (unpatched FerretDB 1.24 on SQLite scanned). Runs on the embedded database or on
 * MONGODB_URI. Usage: npm run bench:id-lookups
 */
import { MongoClient, type Collection } from 'mongodb';
import { benchWorkDir, openBenchDatabase } from './support/cluster.js';
import { line, ms } from './support/util.js';

const OPS = 500;
const SMALL = 100;
const LARGE = 10_000;

interface Doc {
  _id: string;
  n: number;
  body: string;
}

async function fill(collection: Collection<Doc>, count: number): Promise<void> {
  for (let start = 0; start < count; start += 1_000) {
    const size = Math.min(1_000, count - start);
    await collection.insertMany(
      Array.from({ length: size }, (_, i) => ({ _id: `d${start + i}`, n: start + i, body: 'x'.repeat(300) })),
    );
  }
}

/** Mean milliseconds per operation over OPS sequential operations on random ids. */
async function perOp(count: number, op: (id: string) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < OPS; i += 1) await op(`d${Math.floor(Math.random() * count)}`);
  return (performance.now() - started) / OPS;
}

async function main(): Promise<void> {
  const work = benchWorkDir('id-lookups');
  const database = await openBenchDatabase(work.dir);
  const client = await new MongoClient(database.uri).connect();
  try {
    const db = client.db(`bench_ids_${Date.now()}`);
    const small = db.collection<Doc>('small');
    const large = db.collection<Doc>('large');
    await fill(small, SMALL);
    await fill(large, LARGE);
    console.log(`database: ${database.kind}; ${OPS} sequential operations each`);
    const results: Array<[string, number, number]> = [];
    for (const [label, op] of [
      ['findOne by _id', (c: Collection<Doc>, id: string) => c.findOne({ _id: id })],
      ['updateOne by _id', (c: Collection<Doc>, id: string) => c.updateOne({ _id: id }, { $inc: { n: 1 } })],
      // A conditional update: `_id` beside another key (unpatched FerretDB pushed `_id` down only alone).
      [
        'updateOne by _id and n ≥ 0',
        (c: Collection<Doc>, id: string) => c.updateOne({ _id: id, n: { $gte: 0 } }, { $inc: { n: 1 } }),
      ],
    ] as const) {
      const base = await perOp(SMALL, (id) => op(small, id));
      const big = await perOp(LARGE, (id) => op(large, id));
      results.push([label, base, big]);
    }
    for (const [label, base, big] of results) {
      line(`${label}, ${SMALL} docs (baseline)`, ms(base));
      line(`${label}, ${LARGE} docs`, `${ms(big)}  (${(big / base).toFixed(2)}x the baseline)`);
    }
    await db.dropDatabase();
  } finally {
    await client.close();
    await database.stop();
    work.remove();
  }
}

await main();
