import Koa from 'koa';
import type { CoreDeps } from '../core/context.js';
import type { Logger } from '../logger.js';
import { createMediaServingRouter } from './api/media-serving.js';
import { buildOpenApiDocument } from './api/openapi.js';
import { createPublicRouter } from './api/public-router.js';
import { REST_ROUTES } from './api/routes.js';
import { createUploadLinkRouter } from './api/upload-link-route.js';
import { createAuthRouter } from './auth/auth-routes.js';
import { createDeviceRouter } from './auth/device-routes.js';
import { createKeyRouter } from './auth/key-routes.js';
import { createOAuthRouter } from './auth/oauth-routes.js';
import { errorMiddleware } from './middleware/errors.js';
import { canonicalLoopbackHost } from './middleware/canonical-host.js';
import { htmlNotFound } from './web/not-found-page.js';
import { requestContext } from './middleware/request-context.js';
import type { ChatEndpoint } from '../core/chat/gateway.js';
import { createChatRouter } from './chat-routes.js';
import { createMcpRouter, type McpRequestHandler } from './mcp-route.js';
import type { AppState } from './shared/context.js';
import { createSystemRouter, type ProcessPhase } from './system-routes.js';
import { createWebRouter } from './web/web-router.js';
import type { HttpMetrics } from './metrics/exposition.js';
import { createMetricsRouter, requestMetrics } from './metrics/routes.js';

export interface HttpAppOptions {
  deps: CoreDeps;
  logger: Logger;
  publicUrl: string;
  bodyLimitBytes: number;
  trustProxy: boolean;
  checkDatabase: () => Promise<void>;
  /** The process's phase for /readyz; `ready` when not given. */
  phase?: (() => ProcessPhase) | undefined;
  /** The device flow's user-code prefix; `DECK` when not given. */
  devicePrefix?: string | undefined;
  /** Whether anyone may sign up with an account of their own; invitation only when not given. */
  openSignup?: boolean | undefined;
  /** Whether the web app's cookies are Secure; follows the public URL's scheme when not given. */
  secureCookies?: boolean | undefined;
  /** The MCP adapter, served at /mcp when given. */
  mcp?: McpRequestHandler | undefined;
  /** The chat bots' endpoints (Slack events, Discord interactions). */
  chatEndpoints?: readonly ChatEndpoint[] | undefined;
  /** Request timings go here and `/metrics` serves them; `token` is METRICS_TOKEN. */
  metrics?: { registry: HttpMetrics; token: string | undefined } | undefined;
}

/** Builds the Koa app: request ids and logs, one error middleware, probes, docs, /public/v1, /mcp, /auth. */
export function createHttpApp(options: HttpAppOptions): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: options.trustProxy, maxIpsCount: 1 });
  // Errors are rendered by errorMiddleware; Koa's default handler would print them to stderr.
  app.silent = true;
  const system = createSystemRouter({
    checkDatabase: options.checkDatabase,
    phase: options.phase,
    openApiDocument: buildOpenApiDocument(REST_ROUTES, options.publicUrl),
  });
  const api = createPublicRouter(options.deps, REST_ROUTES, options.bodyLimitBytes);

  if (options.metrics) app.use(requestMetrics(options.metrics.registry));
  app.use(requestContext(options.logger));
  app.use(errorMiddleware(options.logger));
  app.use(htmlNotFound());
  app.use(canonicalLoopbackHost(options.publicUrl));
  app.use(system.routes());
  if (options.metrics) app.use(createMetricsRouter(options.metrics.registry, options.metrics.token).routes());
  app.use(api.routes());
  app.use(createUploadLinkRouter(options.deps).routes());
  if (options.mcp) app.use(createMcpRouter(options.deps, options.publicUrl, options.mcp).routes());
  if (options.chatEndpoints?.length) app.use(createChatRouter(options.chatEndpoints, options.deps.metrics).routes());
  app.use(createMediaServingRouter(options.deps, options.deps.media).routes());
  app.use(createDeviceRouter(options).routes());
  app.use(createKeyRouter(options.deps).routes());
  app.use(createOAuthRouter(options).routes());
  app.use(createAuthRouter({ ...options, openSignup: options.openSignup ?? false }).routes());
  app.use(
    createWebRouter({
      ...options,
      openSignup: options.openSignup ?? false,
      secureCookies: options.secureCookies ?? options.publicUrl.startsWith('https:'),
    }).routes(),
  );
  return app;
}
