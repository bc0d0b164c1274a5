import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { registerApi } from './api.js';
import { registerAuthorize } from './authorize.js';
import { registerControl } from './control.js';
import { apiError } from './envelope.js';
import { DEFAULT_EMULATOR_OPTIONS, type EmulatorOptions } from './options.js';
import { EmulatorState } from './state.js';
import { registerToken } from './token.js';

/** A running emulator: its base URL (auth page and API share it), a stop function and its state. */
export interface RunningTikTokEmulator {
  url: string;
  stop(): Promise<void>;
  /** Direct access to the state, for in-process tests; the HTTP control API offers the same. */
  control: EmulatorState;
}

/**
 * Starts the local TikTok emulator (contract section 7, OAuth and creator-info part) on one port; it serves
 * both the `www.tiktok.com` consent page and the `open.tiktokapis.com` API, so both base URLs point at it.
 */
export async function startTikTokEmulator(
  settings: { port: number; host: string; dataFile?: string } & Partial<EmulatorOptions>,
): Promise<RunningTikTokEmulator> {
  const { port, host, dataFile, ...overrides } = settings;
  const options: EmulatorOptions = { ...DEFAULT_EMULATOR_OPTIONS, ...overrides };
  const state = new EmulatorState(dataFile);
  const router = new Router();
  registerAuthorize(router, state, options);
  registerToken(router, state, options);
  registerApi(router, state, options);
  registerControl(router, state);

  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch {
      // An emulator bug must still look like TikTok's 5xx, never a Koa text page.
      apiError(ctx, 500, 'internal_error', 'Internal error.');
    }
  });
  app.use(router.routes());
  app.use(router.allowedMethods());

  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    control: state,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
