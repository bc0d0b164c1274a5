import type { Middleware } from 'koa';
import { createHttpApp, type HttpAppOptions } from '../../src/http/app.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import type { TestDatabase } from './db.js';

/** The real HTTP app on an ephemeral loopback port, over a test database. */
export interface TestServer {
  url: string;
  stop(): Promise<void>;
  /** fetch() against the server with an optional API key. */
  request(path: string, init?: RequestInit & { apiKey?: string }): Promise<Response>;
}

export async function startTestServer(
  database: TestDatabase,
  options: {
    bodyLimitBytes?: number;
    extra?: Middleware;
    /** Overrides of the app's settings (trust X-Forwarded-For, open sign-up, user-code prefix, cookies). */
    app?: Partial<Pick<HttpAppOptions, 'trustProxy' | 'openSignup' | 'devicePrefix' | 'publicUrl' | 'secureCookies'>>;
  } = {},
): Promise<TestServer> {
  const app = createHttpApp({
    deps: database.deps,
    logger: database.deps.logger,
    publicUrl: 'http://localhost',
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    trustProxy: false,
    checkDatabase: async () => {
      await database.db.command({ ping: 1 });
    },
    ...options.app,
  });
  const server: RunningHttpServer = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    stop: () => server.stop(),
    request(path, init = {}) {
      const { apiKey, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (apiKey !== undefined) headers.set('authorization', `Bearer ${apiKey}`);
      return fetch(`${server.url}${path}`, { ...rest, headers });
    },
  };
}
