import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { inject } from 'vitest';
import { collectionsOf, ensureIndexes } from '../../src/core/db/collections.js';
import type { CoreDeps } from '../../src/core/context.js';
import { DEFAULT_PLANS, type PlanTable } from '../../src/core/plans.js';
import { createLogger, type Logger } from '../../src/logger.js';

/** A fresh database of its own on the run's shared server, dropped by `close()`. */
export interface TestDatabase {
  uri: string;
  dbName: string;
  db: Db;
  deps: CoreDeps;
  close(): Promise<void>;
}

/** Opens a uniquely named database with every index ensured, and core deps on it. */
export async function openTestDatabase(options: { plans?: PlanTable; logger?: Logger } = {}): Promise<TestDatabase> {
  const uri = inject('mongoUri');
  const dbName = `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const client = await new MongoClient(uri).connect();
  const db = client.db(dbName);
  await ensureIndexes(db);
  const deps: CoreDeps = {
    db: collectionsOf(db),
    plans: options.plans ?? DEFAULT_PLANS,
    logger: options.logger ?? createLogger({ level: 'silent' }),
    now: () => new Date(),
  };
  return {
    uri,
    dbName,
    db,
    deps,
    async close() {
      await db.dropDatabase();
      await client.close();
    },
  };
}
