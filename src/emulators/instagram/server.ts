import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { registerAuthorize } from './authorize.js';
import { registerContainers } from './containers.js';
import { registerControl } from './control.js';
import { registerControlMedia } from './control-media.js';
import { graphError } from './graph-error.js';
import { registerInsights } from './insights.js';
import { registerMediaPages } from './media-pages.js';
import { registerNodes } from './nodes.js';
import { registerOAuthToken } from './oauth-token.js';
import { resolveInstagramOptions, type InstagramEmulatorSettings } from './options.js';
import { registerPublish } from './publish.js';
import { registerRupload } from './rupload.js';
import { InstagramState } from './state.js';
import { usageHeaders } from './usage-headers.js';

/** A running emulator: its one base URL (every Instagram host maps onto it), a stop function and its state. */
export interface RunningInstagramEmulator {
  url: string;
  close(): Promise<void>;
  /** Direct access to the state, for in-process tests; the HTTP control API offers the same. */
  control: InstagramState;
}

/** Graph calls may carry a version (`/v25.0/me`) or none, as Meta accepts both. */
const VERSION_PREFIX = /^\/v\d+\.\d+(?=\/)/;

/**
 * Starts the local Instagram emulator (docs/contracts/instagram-api.md) on one port. Its paths keep each real
 * host's: `/oauth/authorize` (www.instagram.com), `/oauth/access_token` (api.instagram.com), and the rest
 * (graph.instagram.com, with or without a version prefix), so one base URL stands for all three hosts.
 */
export async function startInstagramEmulator(
  settings: { port?: number; host?: string } & InstagramEmulatorSettings = {},
): Promise<RunningInstagramEmulator> {
  const { port = 0, host = '127.0.0.1', ...overrides } = settings;
  const options = resolveInstagramOptions(overrides);
  const state = new InstagramState();
  const router = new Router();
  registerAuthorize(router, state, options);
  registerOAuthToken(router, state, options);
  registerControl(router, state, options);
  registerControlMedia(router, state, options);
  registerMediaPages(router, state);
  registerContainers(router, state, options);
  registerPublish(router, state, options);
  registerRupload(router, state, options);
  registerInsights(router, state);
  registerNodes(router, state, options);

  const app = new Koa();
  app.use(async (ctx, next) => {
    const version = VERSION_PREFIX.exec(ctx.path)?.[0];
    if (version) {
      (ctx.state as { version?: string }).version = version.slice(1);
      ctx.path = ctx.path.slice(version.length);
    }
    try {
      await next();
    } catch {
      // An emulator bug must still look like a Graph 5xx, never a Koa text page.
      graphError(ctx, { code: 2, httpStatus: 500 });
    }
  });
  app.use(usageHeaders(state, options));
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use((ctx) => {
    if (ctx.status === 404 && ctx.body === undefined) {
      graphError(ctx, { code: 100, message: `Unsupported ${ctx.method.toLowerCase()} request.` });
    }
  });

  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    control: state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
