import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { inject } from 'vitest';
import { ApiKeyCache } from '../../src/core/auth/key-cache.js';
import { collectionsOf, ensureIndexes, type Collections } from '../../src/core/db/collections.js';
import type { CoreDeps } from '../../src/core/context.js';
import { createJobRunner, type JobRunner } from '../../src/core/jobs/job-runner.js';
import { JOB_DEFINITIONS, RECURRING_JOBS } from '../../src/app/jobs.js';
import type { MediaDeps } from '../../src/core/media/deps.js';
import { createDecodeGate } from '../../src/core/media/decode-gate.js';
import { postsUsingMedia } from '../../src/core/media/in-use.js';
import { createLocalMediaStore } from '../../src/core/media/local-store.js';
import { DEFAULT_PLANS, type PlanTable } from '../../src/core/plans.js';
import { createSecretBox, newSecretKey } from '../../src/core/crypto/secret-box.js';
import { TikTokHttp } from '../../src/core/providers/tiktok/http.js';
import { createTikTokProvider } from '../../src/core/providers/tiktok/provider.js';
import { createProviderRegistry } from '../../src/core/providers/registry.js';
import type { AiProviderConfig } from '../../src/core/providers/openai/config.js';
import { createAiProvider } from '../../src/core/providers/openai/provider.js';
import type { TikTokClientConfig } from '../../src/core/providers/tiktok/config.js';
import type { InstagramClientConfig } from '../../src/core/providers/instagram/config.js';
import { InstagramHttp } from '../../src/core/providers/instagram/graph.js';
import { createInstagramProvider } from '../../src/core/providers/instagram/provider.js';
import { NO_METRICS } from '../../src/core/ops/metrics.js';
import { DEFAULT_RETENTION } from '../../src/core/retention/settings.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { WebhookSettings } from '../../src/core/webhooks/settings.js';

/** A fresh database of its own on the run's shared server, dropped by `close()`. */
export interface TestDatabase {
  uri: string;
  dbName: string;
  db: Db;
  deps: CoreDeps;
  /** The local media store's temporary directory (removed by `close()`). */
  mediaDir: string;
  /** Starts processing jobs on this database (the same queue `deps.jobs` enqueues to). */
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

/** A TikTok client config aimed at a closed port: tests that talk to TikTok pass an emulator's config instead. */
const NO_TIKTOK: TikTokClientConfig = {
  authBaseUrl: 'http://127.0.0.1:9',
  apiBaseUrl: 'http://127.0.0.1:9',
  clientKey: 'emulator-client-key',
  clientSecret: 'emulator-client-secret',
  redirectUri: 'http://localhost/platforms/tiktok/callback',
};

/** An Instagram client config aimed at a closed port: tests that talk to Instagram pass an emulator's config instead. */
const NO_INSTAGRAM: InstagramClientConfig = {
  appId: 'emulator-instagram-app-id',
  appSecret: 'emulator-instagram-app-secret',
  authBaseUrl: 'http://127.0.0.1:9',
  tokenBaseUrl: 'http://127.0.0.1:9',
  graphBaseUrl: 'http://127.0.0.1:9',
  graphVersion: 'v25.0',
  redirectUri: 'http://localhost/platforms/instagram/callback',
};

/** An AI provider config aimed at a closed port: tests that use AI pass an emulator's config (test/support/ai.ts). */
const NO_AI: AiProviderConfig = {
  apiKey: 'test-key',
  baseUrl: 'http://127.0.0.1:9/v1',
  textModel: 'gpt-4.1-mini',
  imageModel: 'gpt-image-1',
  imageQuality: 'low',
  textTimeoutMs: 5_000,
  imageTimeoutMs: 5_000,
  attempts: 1,
  maxRetryWaitMs: 0,
  emulated: true,
};

/** Opens a uniquely named database with every index ensured, and core deps on it. */
export async function openTestDatabase(
  options: {
    plans?: PlanTable;
    logger?: Logger;
    tiktok?: TikTokClientConfig;
    instagram?: InstagramClientConfig;
    ai?: AiProviderConfig;
    /** Slide images a generation job draws at once (default 3). */
    imageConcurrency?: number;
    /** Overrides of the media settings (limits, public base URL); the store is a temporary directory. */
    media?: Partial<MediaDeps>;
    /** Outbound webhooks: private endpoints allowed (default false) and the first retry's wait (default 100 ms). */
    webhooks?: Partial<WebhookSettings>;
    /**
     * The worker also schedules the recurring jobs as a production worker does (housekeeping, so the
     * periodic jobs such as the insights planner run on their own); off by default, so tests stay quiet.
     */
    recurring?: boolean;
  } = {},
): Promise<TestDatabase> {
  const uri = inject('mongoUri');
  const dbName = `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const client = await new MongoClient(uri).connect();
  const db = client.db(dbName);
  await ensureIndexes(db);
  const logger = options.logger ?? createLogger({ level: 'silent' });
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-media-'));
  const collections = collectionsOf(db);
  const base: Omit<CoreDeps, 'jobs'> = {
    db: collections,
    plans: options.plans ?? DEFAULT_PLANS,
    // Tests default to the free plan, whose small caps they exercise; installs default to unlimited.
    defaultPlan: 'free',
    logger,
    now: () => new Date(),
    secrets: createSecretBox(newSecretKey()),
    keyCache: new ApiKeyCache(collections, logger),
    providers: createProviderRegistry([
      createTikTokProvider(new TikTokHttp(options.tiktok ?? NO_TIKTOK, logger, { baseDelayMs: 5 })),
      createInstagramProvider(new InstagramHttp(options.instagram ?? NO_INSTAGRAM, logger)),
    ]),
    ai: { provider: createAiProvider(options.ai ?? NO_AI, logger), imageConcurrency: options.imageConcurrency ?? 3 },
    chat: {},
    metrics: NO_METRICS,
    webhooks: { allowPrivate: false, retryBaseMs: 100, ...options.webhooks },
    retention: DEFAULT_RETENTION,
    media: {
      store: createLocalMediaStore(mediaDir),
      limits: { image: 20 * 1024 * 1024, video: 64 * 1024 * 1024 },
      publicBaseUrl: 'http://localhost',
      uploadBaseUrl: 'http://localhost',
      isInUse: postsUsingMedia(db),
      // The server's defaults: one decode per core, eight more waiting.
      decodes: createDecodeGate({ slots: os.availableParallelism(), queue: 8 }),
      ...options.media,
    },
  };
  // Agenda starts only when a test enqueues or runs a worker, so files that never do pay nothing.
  let runner: JobRunner | undefined;
  const jobRunner = (): JobRunner =>
    (runner ??= createJobRunner({
      db,
      deps: base,
      definitions: JOB_DEFINITIONS,
      ...(options.recurring ? { recurring: RECURRING_JOBS } : {}),
      pollIntervalMs: 100,
      concurrency: 20,
    }));
  const deps: CoreDeps = {
    ...base,
    jobs: {
      enqueue: (definition, data, when) => jobRunner().enqueue(definition, data, when),
      afterPublishing: (work) => jobRunner().afterPublishing(work),
    },
  };
  return {
    uri,
    dbName,
    db,
    deps,
    mediaDir,
    startWorker: () => jobRunner().startProcessing(),
    async close() {
      await runner?.stop(5_000);
      await deps.keyCache.close();
      await db.dropDatabase();
      await client.close();
      await rm(mediaDir, { recursive: true, force: true });
    },
  };
}

/** A second connection to a test database whose commands are recorded, as a test sees them on the wire. */
export interface WatchedDatabase {
  /** The collections through the watched connection. */
  db: Collections;
  /** Every command sent on it, oldest first (a test empties it with `commands.length = 0`). */
  commands: CommandStartedEvent[];
  close(): Promise<void>;
}

export async function watchCommands(t: TestDatabase): Promise<WatchedDatabase> {
  const client = await new MongoClient(t.uri, { monitorCommands: true }).connect();
  const commands: CommandStartedEvent[] = [];
  client.on('commandStarted', (event) => commands.push(event));
  return { db: collectionsOf(client.db(t.dbName)), commands, close: () => client.close() };
}
