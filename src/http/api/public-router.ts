import type { IncomingMessage } from 'node:http';
import { Router } from '@koa/router';
import type { CoreDeps, Scope } from '../../core/context.js';
import { AppError, invalidRequest, relocateIssues, type IssueDetail } from '../../core/errors.js';
import { checkOperationInput, parseOperationInput } from '../../core/operations/input.js';
import { requireApiKey } from '../middleware/api-key-auth.js';
import { readIdempotencyKey, respondIdempotently } from '../middleware/idempotency.js';
import { readJsonBody } from '../middleware/json-body.js';
import type { AppContext, AppState } from '../shared/context.js';
import { validate } from '../shared/validate.js';
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
      const scope = await requireApiKey(deps, ctx);
      const idempotencyKey = route.idempotent ? readIdempotencyKey(ctx) : undefined;
      const params = route.params ? validate(route.params, ctx.params, 'params') : undefined;
      const query = route.query ? validate(route.query, ctx.query, 'query') : undefined;
      if (route.multipart) {
        await runUpload(deps, ctx, route, route.multipart, scope, params);
        return;
      }
      const body = route.body
        ? validate(route.body, (await readJsonBody(ctx, bodyLimitBytes)) ?? {}, 'body')
        : undefined;
      const input: Record<string, unknown> = { ...body, ...query, ...params };
      const crossField = checkOperationInput(route.operation, input);
      if (crossField.length > 0) throw invalidRequest(inRestTerms(route, crossField));
      const run = () => runOperation(deps, route, scope, input);
      if (idempotencyKey !== undefined) {
        // Keyed after validation: a request that fails its schema never binds or spends the key.
        const fingerprinted = { method: route.method, route: route.path, params, query, body };
        await respondIdempotently(deps, ctx, scope, idempotencyKey, fingerprinted, route.status, run);
        return;
      }
      render(ctx, route, await run());
    });
  }
  return router;
}

/** Runs the operation; issues in its errors (and in a result that carries them) get REST's paths. */
async function runOperation(
  deps: CoreDeps,
  route: RestRoute,
  scope: Scope,
  input: Record<string, unknown>,
): Promise<unknown> {
  try {
    const result = await route.operation.run(deps, scope, input);
    return route.relocateResult ? route.relocateResult(result, (details) => inRestTerms(route, details)) : result;
  } catch (error) {
    if (!(error instanceof AppError) || !error.details) throw error;
    const details = inRestTerms(route, error.details);
    throw new AppError(error.code, error.message, details, error.retryAfterSeconds);
  }
}

/** An upload streams its form into the store first; whatever fails after that removes the stored bytes. */
async function runUpload(
  deps: CoreDeps,
  ctx: AppContext,
  route: RestRoute,
  multipart: MultipartBody,
  scope: Scope,
  params: object | undefined,
): Promise<void> {
  const request: IncomingMessage = ctx.req;
  try {
    const form = await multipart.read(request, deps);
    let input: Record<string, unknown>;
    try {
      input = parseOperationInput(route.operation, { ...form.input, ...params }, (path) => restPath(route, path));
    } catch (error) {
      await form.discard();
      throw error;
    }
    render(ctx, route, await runOperation(deps, route, scope, input));
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
