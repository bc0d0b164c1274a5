import type { CoreDeps } from '../context.js';
import { mintApiKey } from '../auth/api-keys.js';
import { createTenant, createUser, setAccountPlan } from './create-tenant.js';

export interface BootstrapResult {
  accountId: string;
  workspaceId: string;
  userId: string;
  apiKey: string;
}

/**
 * The scripted way to a key (`postdeck admin bootstrap`): reuses the workspace called
 * `workspaceName` with its account and owner when one exists, otherwise creates all three;
 * applies `plan` when given; always mints a new key.
 */
export async function bootstrapTenant(
  deps: CoreDeps,
  input: { workspaceName: string; plan?: string | undefined },
): Promise<BootstrapResult> {
  const existing = await deps.db.workspaces.findOne({ name: input.workspaceName }, { sort: { createdAt: 1 } });
  let accountId: string;
  let workspaceId: string;
  let userId: string;

  if (existing) {
    const owner = await deps.db.memberships.findOne({ workspaceId: existing._id, role: 'owner' });
    if (!owner) throw new Error(`Workspace ${existing._id} has no owner`);
    ({ accountId, _id: workspaceId } = existing);
    userId = owner.userId;
    if (input.plan) await setAccountPlan(deps, accountId, input.plan);
  } else {
    const user = await createUser(deps, { email: null, name: `${input.workspaceName} owner` });
    const tenant = await createTenant(deps, {
      name: input.workspaceName,
      plan: input.plan ?? 'free',
      ownerUserId: user._id,
    });
    accountId = tenant.account._id;
    workspaceId = tenant.workspace._id;
    userId = user._id;
  }

  const { apiKey } = await mintApiKey(deps, { workspaceId, accountId, userId, name: 'bootstrap' });
  return { accountId, workspaceId, userId, apiKey };
}
