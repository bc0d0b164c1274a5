import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { collectionsOf, type Collections } from '../../src/core/db/collections.js';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded/index.js';
import { startTikTokEmulator, type RunningTikTokEmulator } from '../../src/emulators/tiktok/server.js';
import { startInstagramEmulator, type RunningInstagramEmulator } from '../../src/emulators/instagram/server.js';
import { createLogger } from '../../src/logger.js';
import { openCore, type Core } from '../../src/app/main.js';
import { TIKTOK_CALLBACK_PATH } from '../../src/app/tiktok-setup.js';
import { INSTAGRAM_CALLBACK_PATH } from '../../src/app/instagram-setup.js';
import { spawnPostdeck, stopProcess, tailOf, type PostdeckProcess } from './processes.js';
import { freePort, waitForOk } from './util.js';

/** The database server of a bench run: the embedded FerretDB, or MONGODB_URI when set. */
export interface BenchDatabase {
  uri: string;
  kind: string;
  stop(): Promise<void>;
}

/** Starts the embedded FerretDB under `dir` (the project's test database), or uses MONGODB_URI. */
export async function openBenchDatabase(dir: string): Promise<BenchDatabase> {
  const external = process.env.MONGODB_URI;
  if (external) return { uri: external, kind: 'MONGODB_URI', stop: () => Promise.resolve() };
  const embedded: EmbeddedDatabase = await openEmbeddedDatabase({
    dataDir: dir,
    cacheDir: path.resolve('.cache/ferretdb'),
    logger: createLogger({ level: 'warn', destination: process.stderr }),
    prefer: 'ferretdb',
  });
  return { uri: embedded.uri, kind: embedded.kind, stop: () => embedded.stop() };
}

export interface ClusterOptions {
  database: BenchDatabase;
  /** The parent of this cluster's DATA_DIR and logs. */
  workDir: string;
  /** Agenda's processEvery in the workers (JOB_POLL_INTERVAL_MS). */
  pollIntervalMs: number;
  /** Extra environment for every Postdeck process. */
  env?: Record<string, string>;
  /**
   * The URL the outside world reaches the API at (PUBLIC_URL: OAuth redirects, the `/m/` URLs the
   * emulator pulls photos from), e.g. a proxy in front of several API processes; the API's own URL by default.
   */
  publicUrl?: string;
}

/**
 * One Postdeck deployment for a bench phase: its own database name, a TikTok and an Instagram
 * emulator in this process, one API process (it serves the `/m/` media URLs the emulator pulls photos from), worker
 * processes started and killed on demand, and a core of its own here for seeding and reading.
 */
export interface Cluster {
  readonly dbName: string;
  readonly apiUrl: string;
  readonly emulator: RunningTikTokEmulator;
  /** The Instagram emulator every process of this cluster calls (INSTAGRAM_EMULATOR_URL). */
  readonly instagram: RunningInstagramEmulator;
  readonly core: Core;
  readonly db: Collections;
  readonly env: NodeJS.ProcessEnv;
  readonly logDir: string;
  /** The API process. */
  readonly api: PostdeckProcess;
  readonly workers: PostdeckProcess[];
  /** The API processes started so far (the first is `api`, at apiUrl), restarts included. */
  readonly apis: PostdeckProcess[];
  /** Starts another API process `name` on `port` (a restart reuses the name and appends to its log). */
  startApi(name: string, port: number): PostdeckProcess;
  /** Starts worker process `name` (a restart reuses the name and appends to its log). */
  startWorker(name: string): PostdeckProcess;
  /** Stops everything this cluster started (not the database server). */
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dbName = `bench_${randomUUID().slice(0, 8)}`;
  const dataDir = mkdtempSync(path.join(options.workDir, 'deploy-'));
  const logDir = path.join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const publicUrl = options.publicUrl ?? apiUrl;
  // No data file: the emulator is never restarted here, and saving its whole state as JSON on every
  // request (what the file does) would load this process and distort the timings it reports.
  const emulator = await startTikTokEmulator({
    port: 0,
    host: '127.0.0.1',
    redirectUris: [`${publicUrl}${TIKTOK_CALLBACK_PATH}`],
    verifiedUrlPrefixes: [`${publicUrl}/m/`],
    allowHttpPullUrls: true,
    dailyPostCap: 1000,
    mediaDir: path.join(dataDir, 'emulator-media'),
  });
  // Instagram's default processing time (2 s) and quota (50 a day per account: the bench posts 3 or 4).
  const instagram = await startInstagramEmulator({
    port: 0,
    host: '127.0.0.1',
    redirectUris: [`${publicUrl}${INSTAGRAM_CALLBACK_PATH}`],
  });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MONGODB_URI: options.database.uri,
    MONGODB_DB: dbName,
    DATA_DIR: path.join(dataDir, 'data'),
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    PUBLIC_URL: publicUrl,
    PUBLIC_BASE_URL: publicUrl,
    LOG_LEVEL: 'warn',
    TIKTOK_CLIENT_KEY: 'emulator-client-key',
    TIKTOK_CLIENT_SECRET: 'emulator-client-secret',
    TIKTOK_AUTH_BASE_URL: emulator.url,
    TIKTOK_API_BASE_URL: emulator.url,
    INSTAGRAM_EMULATOR_URL: instagram.url,
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    JOB_POLL_INTERVAL_MS: String(options.pollIntervalMs),
    SHUTDOWN_DRAIN_MS: '2000',
    SHUTDOWN_READY_GRACE_MS: '0', // no load balancer here to notice /readyz
    ...options.env,
  };
  const config = loadConfig(env, { envFile: path.join(dataDir, 'no.env') });
  const core = await openCore(config, createLogger({ level: 'warn', destination: process.stderr }));
  const processes: PostdeckProcess[] = [];
  const workers: PostdeckProcess[] = [];
  const api = spawnPostdeck('api', 'api', env, logDir);
  processes.push(api);
  const apis = [api];
  try {
    await waitForOk(`${apiUrl}/healthz`, 300_000);
  } catch (error) {
    console.error(tailOf(api));
    throw error;
  }

  return {
    dbName,
    apiUrl,
    emulator,
    instagram,
    core,
    db: collectionsOf(core.database.db),
    env,
    logDir,
    api,
    workers,
    apis,
    startApi(name, port) {
      const started = spawnPostdeck(name, 'api', { ...env, PORT: String(port) }, logDir);
      processes.push(started);
      apis.push(started);
      return started;
    },
    startWorker(name) {
      const worker = spawnPostdeck(name, 'worker', env, logDir);
      processes.push(worker);
      workers.push(worker);
      return worker;
    },
    async stop() {
      await Promise.all(processes.map((p) => stopProcess(p)));
      await core.close();
      await emulator.stop();
      await instagram.close();
      if (!process.env.BENCH_KEEP_LOGS) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A temp directory for a bench run, removed by the returned function unless BENCH_KEEP_LOGS is set
 * (then it stays, with the processes' logs, for reading after a failed run).
 */
export function benchWorkDir(label: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `postdeck-bench-${label}-`));
  const keep = Boolean(process.env.BENCH_KEEP_LOGS);
  return { dir, remove: () => (keep ? undefined : rmSync(dir, { recursive: true, force: true })) };
}
