import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type Filter } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import {
  ensureFerretBinary,
  findRunningEmbeddedDatabase,
  openEmbeddedDatabase,
  type EmbeddedDatabase,
  type EmbeddedOptions,
} from '../../src/db/embedded/index.js';

/** Shared with the other test files so the emulator is built once per machine. */
const cacheDir = path.resolve('.cache/ferretdb');
/** The first build of the emulator takes a minute or two on a small machine. */
const BUILD_TIMEOUT_MS = 180_000;

const logLines: string[] = [];
const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });

interface Post {
  _id: string;
  caption: string;
}

const tempDirs: string[] = [];
const opened: EmbeddedDatabase[] = [];

async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-embedded-'));
  tempDirs.push(dir);
  return dir;
}

async function open(dataDir: string, extra: Partial<EmbeddedOptions> = {}): Promise<EmbeddedDatabase> {
  const db = await openEmbeddedDatabase({ dataDir, cacheDir, logger, prefer: 'ferretdb', ...extra });
  opened.push(db);
  return db;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid of a process that has already exited: a reliably dead pid. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

async function withClient<T>(uri: string, fn: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  await ensureFerretBinary(cacheDir, logger);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  for (const db of opened) await db.stop();
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

describe('embedded database', () => {
  it('starts FerretDB, stores data, stops its child, and keeps the data across a restart', async () => {
    const dataDir = await newDataDir();
    const first = await open(dataDir);
    expect(first.kind).toBe('ferretdb');
    expect(first.owned).toBe(true);
    expect(first.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
    expect(first.pid).toBeTypeOf('number');
    expect(existsSync(path.join(dataDir, 'embedded-db.json'))).toBe(true);
    expect(logLines.some((line) => line.includes('"database":"ferretdb"') && line.includes(first.uri))).toBe(true);

    await withClient(first.uri, (client) =>
      client.db('postdeck_test').collection<Post>('posts').insertOne({ _id: 'p1', caption: 'hello' }),
    );
    await first.stop();
    await first.stop(); // idempotent
    expect(() => process.kill(first.pid as number, 0)).toThrow();
    expect(existsSync(path.join(dataDir, 'embedded-db.json'))).toBe(false);
    expect(await findRunningEmbeddedDatabase(dataDir)).toBeNull();

    const second = await open(dataDir);
    expect(second.owned).toBe(true);
    expect(second.pid).not.toBe(first.pid);
    const doc = await withClient(second.uri, (client) =>
      client.db('postdeck_test').collection<Post>('posts').findOne({ _id: 'p1' }),
    );
    expect(doc).toEqual({ _id: 'p1', caption: 'hello' });
    await second.stop();
  }, 60_000);

  it('looks documents up by _id through the _id index (patched FerretDB), other keys beside it too', async () => {
    const db = await open(await newDataDir());
    const plans = await withClient(db.uri, async (client) => {
      const posts = client.db('postdeck_test').collection<Post>('posts');
      await posts.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: `p${i}`, caption: `c${i}` })));
      const plan = async (filter: Filter<Post>) =>
        ((await posts.find(filter).explain()) as { queryPlanner: { Plan: string[] } }).queryPlanner.Plan.join(' ');
      return {
        byId: await plan({ _id: 'p7' }),
        byIdAndMore: await plan({ _id: 'p7', caption: 'c7' }),
        byCaption: await plan({ caption: 'c7' }),
        found: await posts.find({ _id: 'p7', caption: 'c7' }).toArray(),
        notFound: await posts.find({ _id: 'p7', caption: 'c8' }).toArray(),
        updated: (await posts.updateOne({ _id: 'p8', caption: 'other' }, { $set: { caption: 'x' } })).modifiedCount,
      };
    });
    // SQLite's own plan, as FerretDB's explain reports it: `_id` narrows by index even beside other keys,
    // which still apply to what it finds.
    expect(plans.byId).toMatch(/SEARCH \S+ USING INDEX \S+__id_/);
    expect(plans.byIdAndMore).toMatch(/SEARCH \S+ USING INDEX \S+__id_/);
    expect(plans.byCaption).toMatch(/SCAN/);
    expect(plans.found).toEqual([{ _id: 'p7', caption: 'c7' }]);
    expect(plans.notFound).toEqual([]);
    expect(plans.updated).toBe(0);
  }, 60_000);

  it('runs many concurrent updates without a SQLITE_BUSY failure, losing none', async () => {
    const db = await open(await newDataDir());
    const docs = await withClient(db.uri, async (client) => {
      const counters = client.db('postdeck_test').collection<{ _id: string; hits: number[] }>('counters');
      await counters.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: `c${i}`, hits: [] })));
      for (let round = 0; round < 10; round += 1) {
        await Promise.all(
          Array.from({ length: 30 }, (_, i) => counters.updateOne({ _id: `c${i}` }, { $push: { hits: round } })),
        );
      }
      return counters.find({}).toArray();
    });
    expect(docs).toHaveLength(30);
    for (const doc of docs) expect(doc.hits).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  }, 60_000);

  it('attaches to the database another opener already runs on the same data dir', async () => {
    const dataDir = await newDataDir();
    const owner = await open(dataDir);
    const guest = await open(dataDir);
    expect(guest.owned).toBe(false);
    expect(guest.uri).toBe(owner.uri);
    expect(guest.kind).toBe('ferretdb');
    expect(await findRunningEmbeddedDatabase(dataDir)).toEqual({ uri: owner.uri, kind: 'ferretdb' });

    await guest.stop(); // a guest never stops the owner's database
    expect(isAlive(owner.pid as number)).toBe(true);
    await withClient(owner.uri, (client) => client.db('admin').command({ ping: 1 }));

    await owner.stop();
    expect(await findRunningEmbeddedDatabase(dataDir)).toBeNull();
  }, 60_000);

  it('starts one database when two openers race on a fresh data dir', async () => {
    const dataDir = await newDataDir();
    const both = await Promise.all([open(dataDir), open(dataDir)]);
    expect(both.map((db) => db.owned).sort()).toEqual([false, true]);
    expect(both[0]?.uri).toBe(both[1]?.uri);
    for (const db of both) await db.stop();
  }, 60_000);

  it('ignores and cleans a stale registry file and a stale start lock', async () => {
    const dataDir = await newDataDir();
    const pid = await deadPid();
    const registry = path.join(dataDir, 'embedded-db.json');
    const lock = path.join(dataDir, 'embedded-db.lock');
    await writeFile(registry, JSON.stringify({ pid, uri: 'mongodb://127.0.0.1:1/', kind: 'ferretdb', startedAt: '' }));
    expect(await findRunningEmbeddedDatabase(dataDir)).toBeNull();
    expect(existsSync(registry)).toBe(false);

    await writeFile(registry, JSON.stringify({ pid, uri: 'mongodb://127.0.0.1:1/', kind: 'ferretdb', startedAt: '' }));
    await writeFile(lock, JSON.stringify({ pid, at: Date.now() }));
    const db = await open(dataDir);
    expect(db.owned).toBe(true);
    expect(db.uri).not.toBe('mongodb://127.0.0.1:1/');
    expect(JSON.parse(await readFile(registry, 'utf8'))).toMatchObject({ pid: db.pid, uri: db.uri, kind: 'ferretdb' });
    expect(existsSync(lock)).toBe(false);
    await db.stop();
  }, 60_000);

  it('falls through to FerretDB at once when mongod cannot be downloaded', async () => {
    const keys = [
      'MONGOMS_SYSTEM_BINARY',
      'MONGOMS_DOWNLOAD_DIR',
      'MONGOMS_DOWNLOAD_URL',
      'MONGOMS_PREFER_GLOBAL_PATH',
    ];
    const saved = new Map(keys.map((key) => [key, process.env[key]]));
    // No binary anywhere we look, and a download host that cannot resolve (RFC 2606 .invalid),
    // so the test means the same thing offline and on a machine with internet access.
    delete process.env.MONGOMS_SYSTEM_BINARY;
    process.env.MONGOMS_DOWNLOAD_DIR = await newDataDir();
    process.env.MONGOMS_DOWNLOAD_URL = 'https://mongod-download.invalid/mongodb.tgz';
    process.env.MONGOMS_PREFER_GLOBAL_PATH = 'false';
    try {
      const dataDir = await newDataDir();
      // "At once" is the test's own deadline: a download retried for minutes would outlast it.
      const db = await open(dataDir, { prefer: 'auto', allowMongodDownload: true });
      expect(db.kind).toBe('ferretdb');
      await db.stop();
    } finally {
      for (const [key, value] of saved) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }, 60_000);

  it('says how to set MONGODB_URI when no embedded database can be had', async () => {
    const dataDir = await newDataDir();
    await expect(
      open(dataDir, {
        prefer: 'mongod',
        allowMongodDownload: false,
        mongodBinary: path.join(dataDir, 'no-such-mongod'),
      }),
    ).rejects.toThrow(/MONGODB_URI/);
    expect(existsSync(path.join(dataDir, 'embedded-db.lock'))).toBe(false);
  });
});
