import type { CoreDeps, Scope } from '../context.js';
import { mintApiKey } from '../auth/api-keys.js';
import { createTenant, createUser, setAccountPlan } from './create-tenant.js';
import { installWorkspace } from './onboarding.js';
import { SCRIPTED_WORKSPACE_NAME } from './scripted-workspace.js';

export interface BootstrapResult {
  accountId: string;
  workspaceId: string;
  userId: string;
  apiKey: string;
}

/**
 * The scripted way to a key (`postdeck admin bootstrap`): reuses the workspace called
 * `workspaceName` with its account and owner when one exists, otherwise creates all three;
 * applies `plan` when given; always mints a new key. Without a name: the install's own workspace
 * (its first owner's), or `Default`, which the first person to sign up then takes over.
 */
export async function bootstrapTenant(
  deps: CoreDeps,
  input: { workspaceName?: string | undefined; plan?: string | undefined },
): Promise<BootstrapResult> {
  if (input.workspaceName === undefined) {
    // No name: the install's own workspace, so the key works where its owner looks.
    const main = await installWorkspace(deps);
    if (main) return keyFor(deps, main.workspace.accountId, main.workspace._id, main.ownerUserId, input.plan);
  }
  const workspaceName = input.workspaceName ?? SCRIPTED_WORKSPACE_NAME;
  const existing = await deps.db.workspaces.findOne({ name: workspaceName }, { sort: { createdAt: 1 } });
  let accountId: string;
  let workspaceId: string;
  let userId: string;

  if (existing) {
    const owner = await deps.db.memberships.findOne({ workspaceId: existing._id, role: 'owner' });
    if (!owner) throw new Error(`Workspace ${existing._id} has no owner`);
    ({ accountId, _id: workspaceId } = existing);
    userId = owner.userId;
    if (input.plan) await setAccountPlan(deps, cliScope(workspaceId, accountId), input.plan);
  } else {
    const user = await createUser(deps, { email: null, name: `${workspaceName} owner` });
    const tenant = await createTenant(deps, {
      name: workspaceName,
      plan: input.plan ?? deps.defaultPlan,
      ownerUserId: user._id,
    });
    accountId = tenant.account._id;
    workspaceId = tenant.workspace._id;
    userId = user._id;
  }

  return keyFor(deps, accountId, workspaceId, userId, undefined);
}

async function keyFor(
  deps: CoreDeps,
  accountId: string,
  workspaceId: string,
  userId: string,
  plan: string | undefined,
): Promise<BootstrapResult> {
  if (plan) await setAccountPlan(deps, cliScope(workspaceId, accountId), plan);
  const { apiKey } = await mintApiKey(deps, { workspaceId, accountId, userId, name: 'bootstrap', surface: 'cli' });
  return { accountId, workspaceId, userId, apiKey };
}

/** `postdeck admin` acts as the system, from the command line. */
function cliScope(workspaceId: string, accountId: string): Scope {
  return { workspaceId, accountId, actor: { type: 'system' }, surface: 'cli' };
}
