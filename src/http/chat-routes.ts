import { once } from 'node:events';
import { Router } from '@koa/router';
import type { ChatEndpoint } from '../core/chat/gateway.js';
import type { Metrics } from '../core/ops/metrics.js';
import type { AppState } from './shared/context.js';

/**
 * Mounts the chat endpoints untouched: each reads the raw body itself, because the platform's
 * signature is over the exact bytes. Koa steps aside until the answer is sent.
 */
export function createChatRouter(endpoints: readonly ChatEndpoint[], metrics: Metrics): Router<AppState> {
  const router = new Router<AppState>();
  for (const endpoint of endpoints) {
    const method = endpoint.method === 'GET' ? 'get' : 'post';
    // The platform is the endpoint's first segment: /slack/events, /discord/interactions.
    const platform = endpoint.path.split('/')[1] ?? 'chat';
    router[method](endpoint.path, async (ctx) => {
      ctx.respond = false;
      const done = once(ctx.res, 'close');
      endpoint.handle(ctx.req, ctx.res);
      await done;
      metrics.chatInteraction(platform, chatOutcome(ctx.res.statusCode));
    });
  }
  return router;
}

/** `rejected`: the platform's request was refused (a bad signature, a stale timestamp); `error`: we failed. */
function chatOutcome(status: number): 'ok' | 'rejected' | 'error' {
  if (status >= 500) return 'error';
  return status >= 400 ? 'rejected' : 'ok';
}
