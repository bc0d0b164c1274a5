import type { CoreDeps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { authenticateSession, type SessionIdentity } from '../../core/identity/sessions.js';
import type { AppContext } from '../shared/context.js';

/** The bearer token of `Authorization: Bearer <token>`, or undefined when there is none. */
export function bearerToken(ctx: AppContext): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
}

/**
 * Resolves the user's session from `Authorization: Bearer <session token>` (spec 5.6: the
 * approve endpoint uses the session, not an API key). Missing or wrong: 401 `invalid_session`.
 */
export async function requireSession(deps: CoreDeps, ctx: AppContext): Promise<SessionIdentity> {
  const token = bearerToken(ctx);
  if (!token) throw new AppError('invalid_session', 'Sign in and send your session as "Authorization: Bearer pds_..."');
  return authenticateSession(deps, token);
}
