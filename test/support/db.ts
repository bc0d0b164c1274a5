import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { inject } from 'vitest';
import { collectionsOf, ensureIndexes } from '../../src/core/db/collections.js';
import type { CoreDeps } from '../../src/core/context.js';
import { DEFAULT_PLANS, type PlanTable } from '../../src/core/plans.js';
import { createSecretBox, newSecretKey } from '../../src/core/crypto/secret-box.js';
import { TikTokHttp } from '../../src/core/providers/tiktok/http.js';
import type { TikTokClientConfig } from '../../src/core/providers/tiktok/config.js';
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
/** A TikTok client config aimed at a closed port: tests that talk to TikTok pass an emulator's config instead. */
const NO_TIKTOK: TikTokClientConfig = {
  authBaseUrl: 'http://127.0.0.1:9',
  apiBaseUrl: 'http://127.0.0.1:9',
  clientKey: 'emulator-client-key',
  clientSecret: 'emulator-client-secret',
  redirectUri: 'http://localhost/platforms/tiktok/callback',
};

export async function openTestDatabase(
  options: { plans?: PlanTable; logger?: Logger; tiktok?: TikTokClientConfig } = {},
): Promise<TestDatabase> {
  const uri = inject('mongoUri');
  const dbName = `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const client = await new MongoClient(uri).connect();
  const db = client.db(dbName);
  await ensureIndexes(db);
  const logger = options.logger ?? createLogger({ level: 'silent' });
  const deps: CoreDeps = {
    db: collectionsOf(db),
    plans: options.plans ?? DEFAULT_PLANS,
    logger,
    now: () => new Date(),
    secrets: createSecretBox(newSecretKey()),
    tiktok: new TikTokHttp(options.tiktok ?? NO_TIKTOK, logger, { baseDelayMs: 5 }),
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
