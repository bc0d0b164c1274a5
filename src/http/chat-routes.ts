import { once } from 'node:events';
import { Router } from '@koa/router';
import type { ChatEndpoint } from '../core/chat/gateway.js';
import type { AppState } from './shared/context.js';

/**
 * Mounts the chat endpoints untouched: each reads the raw body itself, because the platform's
 * signature is over the exact bytes. Koa steps aside until the answer is sent.
 */
export function createChatRouter(endpoints: readonly ChatEndpoint[]): Router<AppState> {
  const router = new Router<AppState>();
  for (const endpoint of endpoints) {
    const method = endpoint.method === 'GET' ? 'get' : 'post';
    router[method](endpoint.path, async (ctx) => {
      ctx.respond = false;
      const done = once(ctx.res, 'close');
      endpoint.handle(ctx.req, ctx.res);
      await done;
    });
  }
  return router;
}
