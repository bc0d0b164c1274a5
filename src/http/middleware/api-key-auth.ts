import { authenticateApiKey } from '../../core/auth/api-keys.js';
import type { CoreDeps, Scope } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { AppContext } from '../shared/context.js';

/**
 * Resolves `Authorization: Bearer <key>` to a scope on `surface` (REST or MCP): `missing_api_key`
 * or `invalid_api_key` otherwise.
 */
export async function requireApiKey(deps: CoreDeps, ctx: AppContext, surface: 'rest' | 'mcp'): Promise<Scope> {
  const header = ctx.get('authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) {
    throw new AppError('missing_api_key', 'Send your API key as "Authorization: Bearer service_sk_..."');
  }
  const scope: Scope = { ...(await authenticateApiKey(deps, match[1])), surface };
  ctx.state.scope = scope;
  return scope;
}
