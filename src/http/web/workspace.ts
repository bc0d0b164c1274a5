import { z } from 'zod';
import type { CoreDeps, Scope } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { requireMembership, type WorkspaceMembershipView } from '../../core/identity/memberships.js';
import type { AppContext } from '../shared/context.js';
import { WORKSPACE_COOKIE, readCookie, setCookie } from './cookies.js';
import type { WebUser } from './session.js';

const WorkspaceIdSchema = z.uuid();

/** The workspace a page acts in: the core scope plus what the page shows about it. */
export interface CurrentWorkspace {
  scope: Scope;
  workspace: WorkspaceMembershipView;
}

/**
 * The workspace a page acts in. An explicit choice (the `ws` query parameter, or the
 * `workspaceId` field every form posts) must be a workspace of the user's, or the answer is
 * 404 like for a workspace that does not exist. A GET with an explicit choice remembers it in
 * `pd_ws`. Without one, `pd_ws` is used while it still names one of the user's workspaces
 * (a stale or altered cookie is ignored, not an error), else the first workspace by name.
 * Membership is always re-checked through core `requireMembership`, never taken from the cookie.
 */
export async function resolveWorkspace(
  deps: CoreDeps,
  ctx: AppContext,
  user: WebUser,
  options: { explicit: string | undefined; secureCookies: boolean },
): Promise<CurrentWorkspace> {
  if (options.explicit !== undefined) {
    if (!WorkspaceIdSchema.safeParse(options.explicit).success) throw notFound('Workspace');
    const current = await scoped(deps, user, options.explicit);
    if (ctx.method === 'GET' && readCookie(ctx, WORKSPACE_COOKIE) !== options.explicit) {
      setCookie(ctx, WORKSPACE_COOKIE, options.explicit, { sameSite: 'Lax', secure: options.secureCookies });
    }
    return current;
  }
  const remembered = readCookie(ctx, WORKSPACE_COOKIE);
  const preferred = user.workspaces.find((w) => w.workspaceId === remembered) ?? user.workspaces[0];
  if (!preferred) {
    throw new AppError(
      'not_found',
      'You are not a member of any workspace yet. Ask a workspace owner for an invite link.',
    );
  }
  return scoped(deps, user, preferred.workspaceId);
}

/** The `ws` query parameter of a page request, when there is exactly one. */
export function workspaceParam(ctx: AppContext): string | undefined {
  const value = ctx.query.ws;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

async function scoped(deps: CoreDeps, user: WebUser, workspaceId: string): Promise<CurrentWorkspace> {
  const scope: Scope = { ...(await requireMembership(deps, user.userId, workspaceId)), surface: 'web' };
  const workspace = user.workspaces.find((w) => w.workspaceId === workspaceId);
  if (!workspace) throw notFound('Workspace');
  return { scope, workspace };
}
