import type { CoreDeps, Scope } from '../context.js';
import { AppError, notFound } from '../errors.js';
import { revokeApiKey } from './api-keys.js';

/** What a key holder may learn about its own key: which workspace it acts in, and its label. */
export interface CurrentKeyView {
  keyId: string;
  name: string;
  prefix: string;
  createdAt: Date;
  workspace: { id: string; name: string };
}

/** Describes the API key the caller authenticated with (`postdeck whoami`). */
export async function describeCurrentKey(deps: CoreDeps, scope: Scope): Promise<CurrentKeyView> {
  const keyId = currentKeyId(scope);
  const [key, workspace] = await Promise.all([
    deps.db.apiKeys.findOne({ _id: keyId, workspaceId: scope.workspaceId }),
    deps.db.workspaces.findOne({ _id: scope.workspaceId }),
  ]);
  if (!key || !workspace) throw notFound('API key');
  return {
    keyId: key._id,
    name: key.name,
    prefix: key.prefix,
    createdAt: key.createdAt,
    workspace: { id: workspace._id, name: workspace.name },
  };
}

/** Revokes the key the caller authenticated with (`postdeck logout`). */
export async function revokeCurrentKey(deps: CoreDeps, scope: Scope): Promise<void> {
  await revokeApiKey(deps, scope, currentKeyId(scope));
}

function currentKeyId(scope: Scope): string {
  if (scope.actor.type !== 'api_key') throw new AppError('invalid_api_key', 'This call needs an API key');
  return scope.actor.keyId;
}
