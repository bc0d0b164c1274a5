import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { deepFreeze, envBoolean, readEnvironment } from './settings/values.js';
import { ChatEnvSchema, chatConfig, chatProblems, type ChatConfig } from './settings/chat.js';
import { PlanEnvSchema, planSettings } from './settings/plans.js';
import { NetworksEnvSchema, networkProblems, networkSettings, type NetworkSettings } from './settings/networks.js';
import { MetricsEnvSchema, metricsSettings, type MetricsSettings } from './settings/metrics.js';
import { OperationsEnvSchema, operationsSettings, type OperationsSettings } from './settings/operations.js';
import type { MediaStoreSettings } from './core/media/open-store.js';
import type { PlanTable } from './core/plans.js';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

/** Every environment variable Postdeck reads, with its default. The README table mirrors this. */
const EnvSchema = z
  .object({
    PORT: port.default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    PUBLIC_URL: z.url().optional(),
    PUBLIC_BASE_URL: z.url().optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    MONGODB_URI: z
      .string()
      .regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://')
      .optional(),
    MONGODB_DB: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,60}$/)
      .default('postdeck'),
    EMBEDDED_DB: z.enum(['auto', 'mongod', 'ferretdb', 'none']).default('auto'),
    MONGOMS_SYSTEM_BINARY: z.string().min(1).optional(),
    MONGOD_DOWNLOAD: envBoolean.default(true),
    FERRETDB_CACHE_DIR: z.string().min(1).optional(),
    MEDIA_DIR: z.string().min(1).optional(),
    MEDIA_MAX_IMAGE_BYTES: positiveInt.default(20 * 1024 * 1024),
    MEDIA_MAX_VIDEO_BYTES: positiveInt.default(4 * 1024 * 1024 * 1024),
    MEDIA_STORE: z.enum(['local', 's3']).default('local'),
    DECODE_CONCURRENCY: positiveInt.optional(),
    DECODE_QUEUE: z.coerce.number().int().min(0).default(8),
    S3_BUCKET: z.string().min(3).optional(),
    S3_PREFIX: z.string().default(''),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ENDPOINT: z.url().optional(),
    S3_FORCE_PATH_STYLE: envBoolean.default(false),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
    BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
    TRUST_PROXY: envBoolean.default(false),
    JOB_POLL_INTERVAL_MS: positiveInt.default(2000),
    JOB_CONCURRENCY: positiveInt.default(10),
    PUBLISH_CONCURRENCY: positiveInt.default(50),
    SHUTDOWN_DRAIN_MS: positiveInt.default(25_000),
    SHUTDOWN_READY_GRACE_MS: z.coerce.number().int().min(0).default(5_000),
    OPEN_SIGNUP: envBoolean.default(false),
    DEVICE_CODE_PREFIX: z
      .string()
      .regex(/^[A-Z]{2,8}$/, 'must be 2 to 8 capital letters')
      .default('DECK'),
    POSTDECK_SERVER: z.url().optional(),
    POSTDECK_API_KEY: z.string().startsWith('service_sk_', 'must be a Postdeck API key (service_sk_...)').optional(),
    POSTDECK_CONFIG_DIR: z.string().min(1).optional(),
    POSTDECK_COMMAND: z.string().trim().min(1).default('node bin/postdeck.js'),
    XDG_CONFIG_HOME: z.string().min(1).optional(),
    CI: z.string().optional(),
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_BASE_URL: z.url().optional(),
    OPENAI_TEXT_MODEL: z.string().min(1).default('gpt-4.1-mini'),
    OPENAI_IMAGE_MODEL: z.string().min(1).default('gpt-image-1'),
    OPENAI_IMAGE_QUALITY: z.enum(['low', 'medium', 'high', 'auto']).default('medium'),
    OPENAI_TIMEOUT_MS: positiveInt.default(60_000),
    OPENAI_IMAGE_TIMEOUT_MS: positiveInt.default(180_000),
    OPENAI_EMULATOR_PORT: port.default(0),
    AI_IMAGE_CONCURRENCY: z.coerce.number().int().min(1).max(10).default(3),
    TOKEN_ENCRYPTION_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes in base64 (openssl rand -base64 32)')
      .optional(),
  })
  .extend({ ...ChatEnvSchema.shape, ...PlanEnvSchema.shape, ...MetricsEnvSchema.shape, ...OperationsEnvSchema.shape })
  .extend(NetworksEnvSchema.shape);

/** The parsed, frozen settings object handed to the composition root. */
export interface Config extends MetricsSettings, OperationsSettings, NetworkSettings {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly dataDir: string;
  readonly mongo: {
    readonly uri: string | undefined;
    readonly dbName: string;
    /** `none`: MONGODB_URI is required (the Docker image, which cannot build FerretDB). */
    readonly embedded: 'auto' | 'mongod' | 'ferretdb' | 'none';
    readonly mongodBinary: string | undefined;
    readonly mongodDownload: boolean;
    readonly ferretCacheDir: string;
  };
  readonly media: {
    /** Where media bytes live: the local directory (MEDIA_DIR) or an S3-compatible bucket. */
    readonly store: MediaStoreSettings;
    /** The base of the public media URLs (`/m/...`), which TikTok fetches from. */
    readonly publicBaseUrl: string;
    readonly maxImageBytes: number;
    readonly maxVideoBytes: number;
    readonly decodes: { readonly slots: number; readonly queue: number }; // image decodes at once, and waiting
  };
  readonly logLevel: string;
  /** `auto`: readable lines on a terminal, JSON lines otherwise. */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  readonly bodyLimitBytes: number;
  readonly trustProxy: boolean;
  readonly jobs: {
    readonly pollIntervalMs: number;
    readonly concurrency: number;
    /** Publishing tasks (publish, status poll) a worker runs at once: mostly waiting on TikTok and the database. */
    readonly publishConcurrency: number;
    readonly drainMs: number;
  };
  readonly readyGraceMs: number; // after SIGTERM, how long /readyz says `draining` while requests are still served
  readonly plans: PlanTable;
  readonly defaultPlan: string; // the plan new accounts start on (DEFAULT_PLAN)
  readonly auth: {
    /** May anyone sign up (getting their own account), or only the first user and invitees? */
    readonly openSignup: boolean;
    readonly devicePrefix: string;
  };
  /** Settings of the command-line client (`postdeck login`, `whoami`, `logout`). */
  readonly client: {
    readonly configDir: string;
    readonly defaultServer: string;
    /** Running under CI: never try to open a browser. */
    readonly ci: boolean;
    readonly apiKey: string | undefined; // POSTDECK_API_KEY: `postdeck mcp` uses it before login's key
    /** How the start message writes the CLI for this install (`docker compose exec api postdeck` in Docker). */
    readonly command: string;
  };
  /** The key (base64) that seals provider tokens at rest; when unset, a key file under DATA_DIR is created and used. */
  readonly tokenEncryptionKey: string | undefined;
  /** The AI provider (OpenAI or compatible); with neither OPENAI_API_KEY nor OPENAI_BASE_URL, the built-in emulator. */
  readonly ai: {
    readonly apiKey: string | undefined;
    readonly baseUrl: string | undefined;
    readonly textModel: string;
    readonly imageModel: string;
    readonly imageQuality: 'low' | 'medium' | 'high' | 'auto';
    readonly textTimeoutMs: number;
    readonly imageTimeoutMs: number;
    readonly emulatorPort: number;
    readonly imageConcurrency: number; // slide images a generation job draws at once
  };
  readonly chat: ChatConfig; // the Slack and Discord bots, each on when its settings are given (settings/chat.ts)
}

/** Raised with every configuration problem at once, each naming its variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Reads settings from `env` plus an optional `.env` file (real variables win), validates them once,
 * and returns a frozen object. An empty value, in either, means unset (`.env.example` is full of
 * them). Nothing else in Postdeck reads the environment.
 */
export function loadConfig(env: NodeJS.ProcessEnv, options: { cwd?: string; envFile?: string } = {}): Config {
  const cwd = options.cwd ?? process.cwd();
  const parsed = EnvSchema.safeParse(readEnvironment(env, path.resolve(cwd, options.envFile ?? '.env')));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const vars = parsed.data;
  const problems = combinationProblems(vars);
  if (problems.length > 0) throw new ConfigError(problems);
  const dataDir = path.resolve(cwd, vars.DATA_DIR);
  const publicUrl = (vars.PUBLIC_URL ?? `http://localhost:${vars.PORT}`).replace(/\/+$/, '');
  const planned = planSettings(vars, cwd);
  if ('problems' in planned) throw new ConfigError(planned.problems);

  return deepFreeze({
    port: vars.PORT,
    host: vars.HOST,
    publicUrl,
    dataDir,
    mongo: {
      uri: vars.MONGODB_URI,
      dbName: vars.MONGODB_DB,
      embedded: vars.EMBEDDED_DB,
      mongodBinary: vars.MONGOMS_SYSTEM_BINARY,
      mongodDownload: vars.MONGOD_DOWNLOAD,
      ferretCacheDir: path.resolve(cwd, vars.FERRETDB_CACHE_DIR ?? path.join(dataDir, 'cache', 'ferretdb')),
    },
    media: {
      store:
        vars.MEDIA_STORE === 's3'
          ? {
              kind: 's3',
              bucket: vars.S3_BUCKET ?? '',
              prefix: vars.S3_PREFIX,
              region: vars.S3_REGION,
              endpoint: vars.S3_ENDPOINT,
              forcePathStyle: vars.S3_FORCE_PATH_STYLE,
              accessKeyId: vars.S3_ACCESS_KEY_ID,
              secretAccessKey: vars.S3_SECRET_ACCESS_KEY,
            }
          : { kind: 'local', dir: path.resolve(cwd, vars.MEDIA_DIR ?? path.join(dataDir, 'media')) },
      publicBaseUrl: vars.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? publicUrl,
      maxImageBytes: vars.MEDIA_MAX_IMAGE_BYTES,
      maxVideoBytes: vars.MEDIA_MAX_VIDEO_BYTES,
      decodes: { slots: vars.DECODE_CONCURRENCY ?? os.availableParallelism(), queue: vars.DECODE_QUEUE },
    },
    logLevel: vars.LOG_LEVEL,
    logFormat: vars.LOG_FORMAT,
    bodyLimitBytes: vars.BODY_LIMIT_BYTES,
    trustProxy: vars.TRUST_PROXY,
    jobs: {
      pollIntervalMs: vars.JOB_POLL_INTERVAL_MS,
      concurrency: vars.JOB_CONCURRENCY,
      publishConcurrency: vars.PUBLISH_CONCURRENCY,
      drainMs: vars.SHUTDOWN_DRAIN_MS,
    },
    readyGraceMs: vars.SHUTDOWN_READY_GRACE_MS,
    plans: planned.plans,
    defaultPlan: planned.defaultPlan,
    auth: { openSignup: vars.OPEN_SIGNUP, devicePrefix: vars.DEVICE_CODE_PREFIX },
    client: {
      configDir: path.resolve(
        cwd,
        vars.POSTDECK_CONFIG_DIR ?? path.join(vars.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'postdeck'),
      ),
      defaultServer: vars.POSTDECK_SERVER ?? vars.PUBLIC_URL ?? `http://localhost:${vars.PORT}`,
      ci: Boolean(vars.CI) && vars.CI !== 'false',
      apiKey: vars.POSTDECK_API_KEY,
      command: vars.POSTDECK_COMMAND,
    },
    tokenEncryptionKey: vars.TOKEN_ENCRYPTION_KEY,
    ai: {
      apiKey: vars.OPENAI_API_KEY,
      baseUrl: vars.OPENAI_BASE_URL?.replace(/\/+$/, ''),
      textModel: vars.OPENAI_TEXT_MODEL,
      imageModel: vars.OPENAI_IMAGE_MODEL,
      imageQuality: vars.OPENAI_IMAGE_QUALITY,
      textTimeoutMs: vars.OPENAI_TIMEOUT_MS,
      imageTimeoutMs: vars.OPENAI_IMAGE_TIMEOUT_MS,
      emulatorPort: vars.OPENAI_EMULATOR_PORT,
      imageConcurrency: vars.AI_IMAGE_CONCURRENCY,
    },
    chat: chatConfig(vars),
    ...networkSettings(vars),
    ...metricsSettings(vars),
    ...operationsSettings(vars),
  });
}

// Settings that only make sense together, checked after each one parsed on its own.
function combinationProblems(vars: z.infer<typeof EnvSchema>): string[] {
  const problems: string[] = [];
  if (vars.MEDIA_STORE === 's3' && !vars.S3_BUCKET) problems.push('S3_BUCKET: required when MEDIA_STORE is s3');
  if (Boolean(vars.S3_ACCESS_KEY_ID) !== Boolean(vars.S3_SECRET_ACCESS_KEY)) {
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither');
  }
  return [...problems, ...networkProblems(vars), ...chatProblems(vars)];
}
