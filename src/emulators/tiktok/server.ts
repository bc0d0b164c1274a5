import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { registerApi } from './api.js';
import { registerAuthorize } from './authorize.js';
import { registerControl } from './control.js';
import { registerControlPage } from './control-page.js';
import { registerControlPosts } from './control-posts.js';
import { registerControlVideos } from './control-videos.js';
import { PublishEngine } from './engine.js';
import { postPages } from './post-pages.js';
import { apiError } from './envelope.js';
import { resolveOptions, type EmulatorOptions, type EmulatorSettings } from './options.js';
import { registerPublish } from './publish.js';
import { EmulatorState } from './state.js';
import { registerStatus } from './status.js';
import { registerToken } from './token.js';
import { registerUploadHost } from './upload-host.js';
import { registerVideoQuery } from './video-query.js';

/** A running emulator: its base URL (auth page and API share it), a stop function and its state. */
export interface RunningTikTokEmulator {
  url: string;
  stop(): Promise<void>;
  /** Direct access to the state, for in-process tests; the HTTP control API offers the same. */
  control: EmulatorState;
}

/**
 * Starts the local TikTok emulator (contract section 7) on one port; it serves the `www.tiktok.com` consent page
 * and post pages, the `open.tiktokapis.com` API (publishing and the Display API reads) and the upload host, so every base URL points at it. Media bytes being received
 * or checked go to `mediaDir` (a fresh temp directory, removed on stop, when unset).
 */
export async function startTikTokEmulator(
  settings: { port: number; host: string; dataFile?: string } & EmulatorSettings,
): Promise<RunningTikTokEmulator> {
  const { port, host, dataFile, ...overrides } = settings;
  const ownMediaDir = overrides.mediaDir === undefined;
  const mediaDir = overrides.mediaDir ?? mkdtempSync(path.join(os.tmpdir(), 'tiktok-emulator-media-'));
  mkdirSync(mediaDir, { recursive: true });
  const options: EmulatorOptions = { ...resolveOptions(overrides), mediaDir };
  const state = new EmulatorState(dataFile);
  const engine = new PublishEngine(state);
  const router = new Router();
  registerAuthorize(router, state, options);
  registerToken(router, state, options);
  registerApi(router, state, options);
  registerVideoQuery(router, state, options);
  registerPublish(router, state, engine, options);
  registerStatus(router, state, engine, options);
  registerUploadHost(router, state, engine, options);
  registerControl(router, state);
  registerControlPosts(router, state, engine);
  registerControlVideos(router, state, options);
  registerControlPage(router, state, options);

  const app = new Koa();
  app.use(async (ctx, next) => {
    // When the request arrived, before its body was read (the posts list reports it for init requests).
    (ctx.state as { receivedAt?: number }).receivedAt = Date.now();
    if (ctx.path.startsWith('/v2/')) {
      const key = `${ctx.method} ${ctx.path}`;
      state.apiRequests.set(key, (state.apiRequests.get(key) ?? 0) + 1);
    }
    try {
      await next();
    } catch {
      // An emulator bug must still look like TikTok's 5xx, never a Koa text page.
      apiError(ctx, 500, 'internal_error', 'Internal error.');
    }
  });
  app.use(postPages(state, engine));
  app.use(router.routes());
  app.use(router.allowedMethods());

  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    // A taken port leaves nothing behind, so the caller may try another.
    state.close();
    if (ownMediaDir) rmSync(mediaDir, { recursive: true, force: true });
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    control: state,
    stop: async () => {
      state.close();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      if (ownMediaDir) rmSync(mediaDir, { recursive: true, force: true });
    },
  };
}
