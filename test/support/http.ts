import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MediaDeps } from '../../src/core/media/deps.js';
import { postsUsingMedia } from '../../src/core/media/in-use.js';
import { createLocalMediaStore } from '../../src/core/media/local-store.js';
import { createHttpApp, type HttpAppOptions } from '../../src/http/app.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import type { TestDatabase } from './db.js';

/** The real HTTP app on an ephemeral loopback port, over a test database. */
export interface TestServer {
  url: string;
  /** The directory of the local media store (a temporary one, removed by `stop()`). */
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
    /** Overrides of the media settings (limits, base URL); the store is a temporary directory. */
    media?: Partial<MediaDeps>;
    /** Overrides of the app's settings (trust X-Forwarded-For, open sign-up, user-code prefix, cookies). */
    app?: Partial<Pick<HttpAppOptions, 'trustProxy' | 'openSignup' | 'devicePrefix' | 'publicUrl' | 'secureCookies'>>;
  } = {},
): Promise<TestServer> {
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-media-'));
  const media: MediaDeps = {
    store: createLocalMediaStore(mediaDir),
    limits: { image: 20 * 1024 * 1024, video: 64 * 1024 * 1024 },
    publicBaseUrl: 'http://localhost',
    isInUse: postsUsingMedia(database.db),
    ...options.media,
  };
  const app = createHttpApp({
    deps: database.deps,
    media,
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
    mediaDir,
    media,
    async stop() {
      await server.stop();
      await rm(mediaDir, { recursive: true, force: true });
    },
    request(path, init = {}) {
      const { apiKey, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (apiKey !== undefined) headers.set('authorization', `Bearer ${apiKey}`);
      return fetch(`${server.url}${path}`, { ...rest, headers });
    },
  };
}
