import { Router } from '@koa/router';
import type { CoreDeps } from '../core/context.js';
import type { AppState } from './context.js';
import { requireApiKey } from './middleware/api-key-auth.js';
import { readIdempotencyKey, respondIdempotently } from './middleware/idempotency.js';
import { readJsonBody } from './middleware/json-body.js';
import type { AnyRoute } from './route.js';
import { validate } from './validate.js';

export const PUBLIC_PREFIX = '/public/v1';

/** Mounts every declared route under /public/v1: authenticate, validate, call core, render. */
export function createPublicRouter(
  deps: CoreDeps,
  routes: readonly AnyRoute[],
  bodyLimitBytes: number,
): Router<AppState> {
  const router = new Router<AppState>({ prefix: PUBLIC_PREFIX });
  for (const route of routes) {
    if (route.idempotent && route.multipart)
      throw new Error(`${route.operationId}: a multipart route cannot be idempotent`);
    router[route.method](route.path, async (ctx) => {
      // Authentication comes first, so an anonymous caller learns nothing from validation errors.
      const scope = await requireApiKey(deps, ctx);
      const idempotencyKey = route.idempotent ? readIdempotencyKey(ctx) : undefined;
      const params = route.params ? validate(route.params, ctx.params, 'params') : undefined;
      const query = route.query ? validate(route.query, ctx.query, 'query') : undefined;
      const body = route.body
        ? validate(route.body, (await readJsonBody(ctx, bodyLimitBytes)) ?? {}, 'body')
        : undefined;
      const request = route.multipart ? ctx.req : undefined;
      const run = async (): Promise<unknown> => {
        try {
          return await route.handler({ params, query, body, scope, ...(request ? { request } : {}) });
        } catch (error) {
          // A refused upload may still be arriving: read and drop the rest so the client gets the
          // answer instead of a reset, and close the connection rather than reuse it.
          if (request && !request.complete) {
            ctx.set('Connection', 'close');
            request.resume();
          }
          throw error;
        }
      };
      if (idempotencyKey !== undefined) {
        // Keyed after validation: a request that fails its schema never binds or spends the key.
        const fingerprinted = { method: route.method, route: route.path, params, query, body };
        await respondIdempotently(deps, ctx, scope, idempotencyKey, fingerprinted, route.success.status, run);
        return;
      }
      const result = await run();
      ctx.status = route.success.status;
      if (route.success.status !== 204) ctx.body = result;
    });
  }
  return router;
}
