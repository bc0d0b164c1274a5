import { Router } from '@koa/router';
import type { CoreDeps } from '../../core/context.js';
import { registerOAuthClient, type PresentedClient } from '../../core/oauth/clients.js';
import { OAuthError } from '../../core/oauth/errors.js';
import { authorizationServerMetadata, OAUTH_PATHS, protectedResourceMetadata } from '../../core/oauth/metadata.js';
import { exchangeAuthorizationCode } from '../../core/oauth/token.js';
import { MCP_PATH } from '../mcp-route.js';
import { readJsonBody } from '../middleware/json-body.js';
import type { AppContext, AppState } from '../shared/context.js';
import { noStore } from '../shared/no-store.js';
import { readFormBody } from '../web/form-body.js';

/**
 * The machine side of Postdeck's OAuth 2.1 authorization server, for remote MCP clients: metadata
 * (RFC 9728, RFC 8414), dynamic registration (RFC 7591) and the token endpoint. The consent page is
 * the web app's (`/oauth/authorize`). Open to any origin (CORS), as browser-based clients need; none
 * of these endpoints reads a cookie.
 */
export function createOAuthRouter(options: { deps: CoreDeps; publicUrl: string; bodyLimitBytes: number }) {
  const { deps, publicUrl, bodyLimitBytes } = options;
  const router = new Router<AppState>();
  const resource = `${publicUrl}${MCP_PATH}`;
  const paths = [
    OAUTH_PATHS.authorizationServerMetadata,
    OAUTH_PATHS.protectedResourceMetadata,
    `${OAUTH_PATHS.protectedResourceMetadata}${MCP_PATH}`,
    OAUTH_PATHS.register,
    OAUTH_PATHS.token,
  ];
  // Every answer here is open to any origin; a preflight gets the methods and headers it may use.
  router.use(paths, async (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    await next();
  });
  router.options(paths, (ctx) => {
    ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'authorization, content-type, mcp-protocol-version');
    ctx.set('Access-Control-Max-Age', '86400');
    ctx.status = 204;
  });
  router.get(OAUTH_PATHS.authorizationServerMetadata, (ctx) => {
    ctx.body = authorizationServerMetadata(publicUrl);
  });
  for (const path of [OAUTH_PATHS.protectedResourceMetadata, `${OAUTH_PATHS.protectedResourceMetadata}${MCP_PATH}`]) {
    router.get(path, (ctx) => {
      ctx.body = protectedResourceMetadata(publicUrl, resource);
    });
  }
  router.post(OAUTH_PATHS.register, async (ctx) => {
    await answeringOAuthErrors(ctx, async () => {
      const body = await readJsonBody(ctx, bodyLimitBytes).catch(() => {
        throw new OAuthError('invalid_client_metadata', 'Send the client metadata as a JSON object');
      });
      ctx.status = 201;
      ctx.body = await registerOAuthClient(deps, body, ctx.ip);
    });
  });
  router.post(OAUTH_PATHS.token, async (ctx) => {
    await answeringOAuthErrors(ctx, async () => {
      const form = await readFormBody(ctx, bodyLimitBytes).catch(() => {
        throw new OAuthError('invalid_request', 'Send the token request as application/x-www-form-urlencoded');
      });
      ctx.body = await exchangeAuthorizationCode(deps, {
        grantType: form.grant_type,
        code: form.code,
        redirectUri: form.redirect_uri,
        codeVerifier: form.code_verifier,
        resource: form.resource,
        client: presentedClient(ctx, form),
      });
    });
  });
  return router;
}

/** The client's credentials from HTTP Basic or the form (RFC 6749 2.3.1). */
function presentedClient(ctx: AppContext, form: Record<string, string>): PresentedClient {
  const basic = /^Basic\s+(.+)$/i.exec(ctx.get('authorization'));
  if (basic?.[1]) {
    const [id = '', secret = ''] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
    return { clientId: decodeURIComponent(id), secret: decodeURIComponent(secret), method: 'client_secret_basic' };
  }
  if (form.client_secret !== undefined) {
    return { clientId: form.client_id, secret: form.client_secret, method: 'client_secret_post' };
  }
  return { clientId: form.client_id, secret: undefined, method: 'none' };
}

/** Renders OAuth errors in the RFCs' shape; the answers are never cached (they may carry secrets). */
async function answeringOAuthErrors(ctx: AppContext, run: () => Promise<void>): Promise<void> {
  noStore(ctx);
  try {
    await run();
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    ctx.status = error.status;
    if (error.status === 401) ctx.set('WWW-Authenticate', 'Basic realm="Postdeck"');
    ctx.body = { error: error.error, error_description: error.description };
  }
}
