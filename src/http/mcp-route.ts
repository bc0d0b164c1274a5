import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router } from '@koa/router';
import type { CoreDeps, Scope } from '../core/context.js';
import { AppError } from '../core/errors.js';
import { OAUTH_PATHS } from '../core/oauth/metadata.js';
import { requireApiKey } from './middleware/api-key-auth.js';
import type { AppState } from './shared/context.js';

/** The MCP adapter's answer to one authenticated request (given by the composition root). */
export type McpRequestHandler = (req: IncomingMessage, res: ServerResponse, scope: Scope) => Promise<void>;

export const MCP_PATH = '/mcp';

/**
 * The MCP endpoint: an API key as a Bearer token (401 with `WWW-Authenticate` otherwise), requests
 * from a browser page only from Postdeck's own origin (against DNS rebinding), then the MCP adapter
 * writes the answer itself. Only POST: the server is stateless, so there is no stream to GET and no
 * session to DELETE.
 */
export function createMcpRouter(deps: CoreDeps, publicUrl: string, handle: McpRequestHandler): Router<AppState> {
  const router = new Router<AppState>();
  const ownOrigin = new URL(publicUrl).origin;
  // Where an OAuth client learns how to get a token for this endpoint (RFC 9728).
  const resourceMetadata = `${publicUrl}${OAUTH_PATHS.protectedResourceMetadata}${MCP_PATH}`;
  router.post(MCP_PATH, async (ctx) => {
    const origin = ctx.get('origin');
    if (origin && origin !== ownOrigin) throw new AppError('forbidden', `Requests from ${origin} are not accepted`);
    let scope: Scope;
    try {
      scope = await requireApiKey(deps, ctx, 'mcp');
    } catch (error) {
      if (error instanceof AppError) {
        const invalid = error.code === 'invalid_api_key' ? ', error="invalid_token"' : '';
        ctx.set('WWW-Authenticate', `Bearer realm="Postdeck", resource_metadata="${resourceMetadata}"${invalid}`);
      }
      throw error;
    }
    ctx.respond = false;
    await handle(ctx.req, ctx.res, scope);
  });
  // As MCP clients expect it: 405 with a JSON-RPC error (a client then knows there is no stream to open).
  router.all(MCP_PATH, (ctx) => {
    ctx.status = 405;
    ctx.set('Allow', 'POST');
    ctx.body = {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: the MCP endpoint is stateless, send JSON-RPC with POST' },
      id: null,
    };
  });
  return router;
}
