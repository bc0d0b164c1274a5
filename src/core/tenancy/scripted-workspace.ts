import { randomUUID } from 'node:crypto';
import type { Surface } from '../actor.js';
import type { CoreDeps } from '../context.js';
import { auditJoin } from '../identity/memberships.js';
import type { WorkspaceDoc } from './documents.js';

/** The workspace `postdeck admin bootstrap` makes when it runs before anyone has signed up. */
export const SCRIPTED_WORKSPACE_NAME = 'Default';

/**
 * The workspace a script made before the install had an owner: named `Default` and owned only by a
 * scripted user (no email, no password), so no person can open it yet. Null when there is none.
 */
export async function findUnclaimedScriptedWorkspace(
  deps: CoreDeps,
): Promise<{ workspace: WorkspaceDoc; ownerUserId: string } | null> {
  const workspace = await deps.db.workspaces.findOne({ name: SCRIPTED_WORKSPACE_NAME }, { sort: { createdAt: 1 } });
  if (!workspace) return null;
  const owners = await deps.db.memberships.find({ workspaceId: workspace._id, role: 'owner' }).toArray();
  const users = await deps.db.users.find({ _id: { $in: owners.map((owner) => owner.userId) } }).toArray();
  if (users.length === 0 || users.some((user) => user.email !== null)) return null;
  return { workspace, ownerUserId: users[0]!._id };
}

/** Makes `userId` an owner of the scripted workspace: the install's first person takes it over. */
export async function adoptScriptedWorkspace(
  deps: CoreDeps,
  workspace: WorkspaceDoc,
  userId: string,
  surface: Surface,
): Promise<void> {
  const membershipId = randomUUID();
  await deps.db.memberships.insertOne({
    _id: membershipId,
    workspaceId: workspace._id,
    userId,
    role: 'owner',
    createdAt: deps.now(),
  });
  await auditJoin(
    deps,
    { workspaceId: workspace._id, accountId: workspace.accountId, userId, surface },
    { membershipId, role: 'owner', via: 'first_owner' },
  );
}
