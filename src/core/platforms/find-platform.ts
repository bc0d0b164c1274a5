import type { CoreDeps, Scope } from '../context.js';
import type { PlatformDoc } from './documents.js';
import { notFound } from '../errors.js';

/** A platform of the scope's workspace, by id; another workspace's id is `not_found` like an unknown one. */
export async function findWorkspacePlatform(deps: CoreDeps, scope: Scope, platformId: string): Promise<PlatformDoc> {
  const doc = await deps.db.platforms.findOne({ _id: platformId });
  if (!doc || doc.workspaceId !== scope.workspaceId) throw notFound('Platform');
  return doc;
}
