import { Router } from '@koa/router';
import { describeCurrentKey, revokeCurrentKey } from '../../core/auth/current-key.js';
import type { CoreDeps } from '../../core/context.js';
import type { AppState } from '../shared/context.js';
import { requireApiKey } from '../middleware/api-key-auth.js';

/**
 * `/auth/key`: a key holder reads (GET) or revokes (DELETE) the key it calls with. Used by
 * `postdeck whoami` and `postdeck logout`; unversioned like the rest of /auth.
 */
export function createKeyRouter(deps: CoreDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/auth/key', async (ctx) => {
    ctx.body = await describeCurrentKey(deps, await requireApiKey(deps, ctx, 'rest'));
  });
  router.delete('/auth/key', async (ctx) => {
    await revokeCurrentKey(deps, await requireApiKey(deps, ctx, 'rest'));
    ctx.status = 204;
  });
  return router;
}
