import type { IncomingMessage } from 'node:http';
import { Router } from '@koa/router';
import type { CoreDeps, Scope } from '../../core/context.js';
import { relocateIssues, type IssueDetail } from '../../core/errors.js';
import { prepareOperation, type InputPart, type OperationCall } from '../../core/operations/invoke.js';
import { requireApiKey } from '../middleware/api-key-auth.js';
import { readIdempotencyKey, respondIdempotently } from '../middleware/idempotency.js';
import { readJsonBody } from '../middleware/json-body.js';
import type { AppContext, AppState } from '../shared/context.js';
import type { MultipartBody, RestRoute } from './rest-route.js';

export const PUBLIC_PREFIX = '/public/v1';

/** Mounts every bound operation under /public/v1: authenticate, validate, run the operation, render. */
export function createPublicRouter(
  deps: CoreDeps,
  routes: readonly RestRoute[],
  bodyLimitBytes: number,
): Router<AppState> {
  const router = new Router<AppState>({ prefix: PUBLIC_PREFIX });
  for (const route of routes) {
    router[route.method](route.path, async (ctx) => {
      // Authentication comes first, so an anonymous caller learns nothing from validation errors.
      const scope = await requireApiKey(deps, ctx, 'rest');
      const idempotencyKey = route.idempotent ? readIdempotencyKey(ctx) : undefined;
      if (route.multipart) {
        await runUpload(deps, ctx, route, route.multipart, scope);
        return;
      }
      const parts: InputPart[] = [];
      if (route.params) parts.push({ where: 'params', schema: route.params, value: ctx.params });
      if (route.query) parts.push({ where: 'query', schema: route.query, value: ctx.query });
      if (route.body) {
        parts.push({ where: 'body', schema: route.body, value: (await readJsonBody(ctx, bodyLimitBytes)) ?? {} });
      }
      const call = prepareOperation(route.operation, { parts }, (path) => restPath(route, path));
      if (idempotencyKey !== undefined) {
        // Keyed after validation: a request that fails its schema never binds or spends the key.
        const { params, query, body } = call.parts;
        const fingerprinted = { method: route.method, route: route.path, params, query, body };
        const run = (seed: string) => runCall(deps, route, { ...scope, idempotencySeed: seed }, call);
        await respondIdempotently(deps, ctx, scope, idempotencyKey, fingerprinted, route.status, run);
        return;
      }
      render(ctx, route, await runCall(deps, route, scope, call));
    });
  }
  return router;
}

/** Runs a validated call; issues in a result that carries them get REST's paths too. */
async function runCall(deps: CoreDeps, route: RestRoute, scope: Scope, call: OperationCall<unknown>): Promise<unknown> {
  const result = await call.run(deps, scope);
  return route.relocateResult ? route.relocateResult(result, (details) => inRestTerms(route, details)) : result;
}

/** An upload streams its form into the store first; whatever fails after that removes the stored bytes. */
async function runUpload(
  deps: CoreDeps,
  ctx: AppContext,
  route: RestRoute,
  multipart: MultipartBody,
  scope: Scope,
): Promise<void> {
  const request: IncomingMessage = ctx.req;
  try {
    const form = await multipart.read(request, deps);
    let call: OperationCall<unknown>;
    try {
      const whole: Record<string, unknown> = { ...form.input, ...(ctx.params as Record<string, string>) };
      call = prepareOperation(route.operation, { whole }, (path) => restPath(route, path));
    } catch (error) {
      await form.discard();
      throw error;
    }
    render(ctx, route, await runCall(deps, route, scope, call));
  } catch (error) {
    // A refused upload may still be arriving: read and drop the rest so the client gets the
    // answer instead of a reset, and close the connection rather than reuse it.
    if (!request.complete) {
      ctx.set('Connection', 'close');
      request.resume();
    }
    throw error;
  }
}

function render(ctx: AppContext, route: RestRoute, result: unknown): void {
  ctx.status = route.status;
  if (route.status !== 204) ctx.body = result;
}

/** REST names where each input field travelled: `body`, `query` or `params` goes first. */
function restPath(route: RestRoute, path: IssueDetail['path']): IssueDetail['path'] {
  return [route.locate(path[0]), ...path];
}

function inRestTerms(route: RestRoute, details: readonly IssueDetail[]): IssueDetail[] {
  return relocateIssues(details, (path) => restPath(route, path));
}
