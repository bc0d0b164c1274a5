import type { CoreDeps, Scope } from '../context.js';
import { AppError } from '../errors.js';

/**
 * The system's scope in a workspace named by id, or by exact name when no id matches (the admin
 * CLI's `--workspace`; `admin bootstrap` names its workspace `Default`). A name shared by several
 * workspaces is refused: the id must be given then.
 */
export async function systemScopeFor(deps: CoreDeps, workspace: string): Promise<Scope> {
  const byId = await deps.db.workspaces.findOne({ _id: workspace });
  const matches = byId ? [byId] : await deps.db.workspaces.find({ name: workspace }).limit(2).toArray();
  const [found] = matches;
  if (!found) throw new AppError('not_found', `No workspace has the id or name "${workspace}".`);
  if (matches.length > 1) {
    throw new AppError('conflict', `Several workspaces are named "${workspace}"; pass the workspace id instead.`);
  }
  return { workspaceId: found._id, accountId: found.accountId, actor: { type: 'system' } };
}
