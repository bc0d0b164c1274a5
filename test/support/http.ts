import { afterAll } from 'vitest';
import type { MediaDeps } from '../../src/core/media/deps.js';
import { createHttpApp, type HttpAppOptions } from '../../src/http/app.js';
import { createMcpHttpHandler } from '../../src/mcp/http.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { withClock, type TestClock } from './identity.js';

/** The real HTTP app on an ephemeral loopback port, over a test database. */
export interface TestServer {
  url: string;
  /** The directory of the local media store (the test database's, removed when it closes). */
  mediaDir: string;
  /** The media settings the app runs with. */
  media: MediaDeps;
  stop(): Promise<void>;
  /** fetch() against the server with an optional API key. */
  request(path: string, init?: RequestInit & { apiKey?: string }): Promise<Response>;
}

export async function startTestServer(
  database: TestDatabase,
  options: {
    bodyLimitBytes?: number;
    /** Overrides of the media settings (limits, base URL) for this server; the store stays the database's. */
    media?: Partial<MediaDeps>;
    /** A fixed port (e.g. one picked with freePort so the media base URL can name it); default ephemeral. */
    port?: number;
    /** Overrides of the app's settings (trust X-Forwarded-For, open sign-up, user-code prefix, cookies). */
    app?: Partial<
      Pick<
        HttpAppOptions,
        'trustProxy' | 'openSignup' | 'devicePrefix' | 'publicUrl' | 'secureCookies' | 'chatEndpoints' | 'metrics'
      >
    >;
  } = {},
): Promise<TestServer> {
  const media: MediaDeps = { ...database.deps.media, ...options.media };
  const deps = { ...database.deps, media };
  const app = createHttpApp({
    deps,
    logger: database.deps.logger,
    publicUrl: 'http://localhost',
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    trustProxy: false,
    checkDatabase: async () => {
      await database.db.command({ ping: 1 });
    },
    mcp: createMcpHttpHandler({ deps, logger: database.deps.logger, version: 'test' }),
    ...options.app,
  });
  const server: RunningHttpServer = await startHttpServer(app, { host: '127.0.0.1', port: options.port ?? 0 });
  return {
    url: server.url,
    mediaDir: database.mediaDir,
    media,
    async stop() {
      await server.stop();
    },
    request(path, init = {}) {
      const { apiKey, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (apiKey !== undefined) headers.set('authorization', `Bearer ${apiKey}`);
      return fetch(`${server.url}${path}`, { ...rest, headers });
    },
  };
}

/**
 * A test file's database and server, opened once and closed after its last test. At the top of
 * the file, so its tests use `t` and `server` as they are: `const { t, server } = await useTestServer();`
 */
export async function useTestServer(
  options: {
    database?: Parameters<typeof openTestDatabase>[0];
    server?: Parameters<typeof startTestServer>[1];
    /** The clock the database's deps read (test/support/identity.ts `withClock`). */
    clock?: TestClock;
  } = {},
): Promise<{ t: TestDatabase; server: TestServer }> {
  const opened = await openTestDatabase(options.database);
  const t = options.clock ? withClock(opened, options.clock) : opened;
  const server = await startTestServer(t, options.server).catch(async (error: unknown) => {
    await t.close();
    throw error;
  });
  afterAll(async () => {
    await server.stop();
    await t.close();
  });
  return { t, server };
}
