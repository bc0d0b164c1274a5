import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import type { CoreDeps } from '../core/context.js';
import { ApiKeyCache } from '../core/auth/key-cache.js';
import { resolveSecretKey } from '../core/crypto/key-file.js';
import { createSecretBox } from '../core/crypto/secret-box.js';
import { collectionsOf, ensureIndexes } from '../core/db/collections.js';
import { createJobRunner, type JobRunner } from '../core/jobs/job-runner.js';
import { createDecodeGate } from '../core/media/decode-gate.js';
import { postsUsingMedia } from '../core/media/in-use.js';
import { openMediaStore } from '../core/media/open-store.js';
import type { AiProviderConfig } from '../core/providers/openai/config.js';
import { createAiProvider } from '../core/providers/openai/provider.js';
import { createTikTokProvider, TikTokHttp, type TikTokClientConfig } from '../core/providers/tiktok/index.js';
import {
  createInstagramProvider,
  InstagramHttp,
  type InstagramClientConfig,
} from '../core/providers/instagram/index.js';
import { createProviderRegistry } from '../core/providers/registry.js';
import { DEFAULT_RETRY_BASE_MS } from '../core/webhooks/settings.js';
import { startLocalTikTokEmulator, type LocalTikTokEmulator } from './tiktok-emulator.js';
import { startLocalInstagramEmulator, type LocalInstagramEmulator } from './instagram-emulator.js';
import { externalInstagramEmulator, instagramClientConfig, usesInstagramEmulator } from './instagram-setup.js';
import {
  externalTikTokEmulator,
  requireExternalTikTokEmulator,
  tiktokClientConfig,
  usesTikTokEmulator,
} from './tiktok-setup.js';
import { aiProviderConfig, usesOpenAiEmulator } from './openai-setup.js';
import { startLocalOpenAiEmulator } from './openai-emulator.js';
import { startChatBots } from './chat-setup.js';
import { JOB_DEFINITIONS, RECURRING_JOBS } from './jobs.js';
import { openDatabase, type DatabaseHandle } from '../db/connect.js';
import { createHttpApp } from '../http/app.js';
import { startHttpServer, type RunningHttpServer } from '../http/server.js';
import type { ProcessPhase } from '../http/system-routes.js';
import { createMcpHttpHandler } from '../mcp/http.js';
import { POSTDECK_VERSION } from './version.js';
import { startWorkerHeartbeat } from './worker-heartbeat.js';
import type { Logger } from '../logger.js';
import { startMetricsListener, type MetricsListener } from '../http/metrics/listener.js';
import { createMetricsRegistry, type MetricsRegistry } from './metrics/registry.js';

/** The process roles: `api` serves HTTP, `worker` processes jobs; `serve` runs both. */
export type Role = 'api' | 'worker';

/** The database, core dependencies and job queue, without any adapter: what the CLI needs too. */
export interface Core {
  readonly database: DatabaseHandle;
  readonly deps: CoreDeps;
  readonly jobs: JobRunner;
  /** This process's metrics (deps.metrics is the same, as core sees it). */
  readonly metrics: MetricsRegistry;
  close(): Promise<void>;
}

/** A started Postdeck process. */
export interface RunningPostdeck extends Core {
  readonly http: RunningHttpServer | undefined;
  /**
   * Ordered, idempotent shutdown: /readyz answers 503 `draining` from the start; requests are still
   * served for `readyGraceMs` (so a load balancer checking /readyz stops sending first), then intake and
   * polling stop, requests and jobs drain, and the database closes last.
   */
  stop(options?: { readyGraceMs?: number }): Promise<void>;
}

/**
 * Opens the database, ensures indexes, and builds the core dependencies and job queue. `tiktok`,
 * `instagram` and `ai` override the provider settings (the emulators' addresses, found by the caller).
 */
export async function openCore(
  config: Config,
  logger: Logger,
  options: { tiktok?: TikTokClientConfig; instagram?: InstagramClientConfig; ai?: AiProviderConfig } = {},
): Promise<Core> {
  const database = await openDatabase(config, logger);
  try {
    await ensureIndexes(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  const db = collectionsOf(database.db);
  const metrics = createMetricsRegistry({ db, ping: () => database.ping() });
  const base: Omit<CoreDeps, 'jobs'> = {
    db,
    plans: config.plans,
    defaultPlan: config.defaultPlan,
    logger,
    now: () => new Date(),
    secrets: createSecretBox(resolveSecretKey(config.tokenEncryptionKey, config.dataDir)),
    keyCache: new ApiKeyCache(db, logger),
    providers: createProviderRegistry([
      createTikTokProvider(new TikTokHttp(options.tiktok ?? tiktokClientConfig(config), logger, { metrics })),
      createInstagramProvider(
        new InstagramHttp(options.instagram ?? instagramClientConfig(config), logger, { metrics }),
      ),
    ]),
    ai: {
      provider: createAiProvider(options.ai ?? aiProviderConfig(config), logger, metrics),
      imageConcurrency: config.ai.imageConcurrency,
    },
    chat: {},
    metrics,
    webhooks: { allowPrivate: config.webhooks.allowPrivate, retryBaseMs: DEFAULT_RETRY_BASE_MS },
    retention: config.retention,
    media: {
      store: openMediaStore(config.media.store),
      limits: { image: config.media.maxImageBytes, video: config.media.maxVideoBytes },
      publicBaseUrl: config.media.publicBaseUrl,
      uploadBaseUrl: config.publicUrl,
      isInUse: postsUsingMedia(database.db),
      decodes: createDecodeGate(config.media.decodes),
    },
  };
  const jobs = createJobRunner({
    db: database.db,
    deps: base,
    definitions: JOB_DEFINITIONS,
    recurring: RECURRING_JOBS,
    pollIntervalMs: config.jobs.pollIntervalMs,
    concurrency: config.jobs.concurrency,
    publishConcurrency: config.jobs.publishConcurrency,
  });
  const deps: CoreDeps = { ...base, jobs };
  return {
    database,
    deps,
    jobs,
    metrics,
    async close() {
      await jobs.stop(config.jobs.drainMs);
      await deps.keyCache.close();
      await database.close();
    },
  };
}

/**
 * The composition root: config, the TikTok emulator when no TikTok credentials are set (the built-in
 * one, unless TIKTOK_EMULATOR_URL names one already running), database, core, jobs, then the
 * adapters of the chosen roles.
 */
export async function startPostdeck(
  config: Config,
  logger: Logger,
  roles: ReadonlySet<Role>,
): Promise<RunningPostdeck> {
  const external = externalTikTokEmulator(config);
  if (external) {
    await requireExternalTikTokEmulator(external);
    logger.info(
      { url: external.apiUrl, consentPage: external.authUrl },
      'TikTok emulator in use (TIKTOK_EMULATOR_URL): accounts are emulated and posts go nowhere real',
    );
  }
  const emulator: LocalTikTokEmulator | undefined =
    usesTikTokEmulator(config) && !external ? await startLocalTikTokEmulator(config, logger) : undefined;
  const instagramExternal = externalInstagramEmulator(config);
  const instagram: LocalInstagramEmulator | undefined =
    usesInstagramEmulator(config) && !instagramExternal ? await startLocalInstagramEmulator(config, logger) : undefined;
  const openai = usesOpenAiEmulator(config) ? await startLocalOpenAiEmulator(config, logger) : undefined;
  const stopEmulators = async () => {
    await emulator?.stop();
    await instagram?.stop();
    await openai?.stop();
  };
  let core: Core;
  try {
    core = await openCore(config, logger, {
      tiktok: tiktokClientConfig(config, emulator ?? external),
      instagram: instagramClientConfig(config, instagram ?? instagramExternal),
      ai: aiProviderConfig(config, openai?.baseUrl),
    });
  } catch (error) {
    await stopEmulators();
    throw error;
  }
  let http: RunningHttpServer | undefined;
  let heartbeat: { stop(): void } | undefined;
  // /readyz answers 503 until every part of this process is up, and again from the start of a stop.
  let phase: ProcessPhase = 'starting';
  let metricsListener: MetricsListener | undefined;
  try {
    const chatEndpoints = startChatBots(core.deps, config, logger);
    // A worker alone serves no HTTP: its metrics get a listener of their own when METRICS_PORT asks for one.
    if (!roles.has('api') && config.metrics.port !== undefined) {
      const { token } = config.metrics;
      metricsListener = await startMetricsListener({
        metrics: core.metrics,
        token,
        host: config.host,
        port: config.metrics.port,
      });
      logger.info({ url: metricsListener.url }, 'worker metrics are served');
    }
    if (roles.has('api')) {
      const app = createHttpApp({
        deps: core.deps,
        logger,
        publicUrl: config.publicUrl,
        bodyLimitBytes: config.bodyLimitBytes,
        trustProxy: config.trustProxy,
        checkDatabase: () => core.database.ping(),
        phase: () => phase,
        devicePrefix: config.auth.devicePrefix,
        openSignup: config.auth.openSignup,
        mcp: createMcpHttpHandler({ deps: core.deps, logger, version: POSTDECK_VERSION }),
        chatEndpoints,
        metrics: { registry: core.metrics, token: config.metrics.token },
      });
      http = await startHttpServer(app, { host: config.host, port: config.port, graceMs: config.jobs.drainMs });
    }
    if (roles.has('worker')) {
      await core.jobs.startProcessing();
      heartbeat = startWorkerHeartbeat(config.dataDir, () => core.database.ping(), logger);
    }
    phase = 'ready';
  } catch (error) {
    await http?.stop();
    heartbeat?.stop();
    await metricsListener?.stop();
    await core.close();
    await stopEmulators();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    ...core,
    http,
    stop({ readyGraceMs = 0 } = {}) {
      // The database goes last: the requests and jobs still running need it to finish or undo their work.
      stopping ??= (async () => {
        phase = 'draining';
        const drainHttp = async () => {
          if (!http) return;
          if (readyGraceMs > 0) {
            logger.info({ readyGraceMs }, 'draining: /readyz answers 503; still serving until the grace ends');
            await sleep(readyGraceMs);
          }
          await http.stop();
        };
        const [, { unfinished }] = await Promise.all([drainHttp(), core.jobs.stop(config.jobs.drainMs)]);
        if (unfinished > 0) logger.warn({ unfinished }, 'released running jobs to other workers');
        heartbeat?.stop();
        await metricsListener?.stop();
        await core.deps.keyCache.close();
        await stopEmulators();
        await core.database.close();
        logger.info('stopped');
      })();
      return stopping;
    },
  };
}
