import type { CoreDeps } from '../context.js';
import type { MembershipRole } from '../identity/documents.js';
import { isLeaseHeld } from '../db/leases.js';
import { notFound } from '../errors.js';
import { findUsableInvitation } from '../identity/invitations.js';
import { FIRST_OWNER_LEASE } from '../identity/sign-up.js';
import type { WorkspaceDoc } from './documents.js';
import { findUnclaimedScriptedWorkspace } from './scripted-workspace.js';

/** What the holder of an invitation link may learn before accepting it: never the token. */
export interface InvitationPreview {
  workspaceName: string;
  role: MembershipRole;
  /** The only address that may accept it, when the owner named one. */
  email: string | null;
  expiresAt: Date;
}

/**
 * Describes the invitation behind `token` for its landing page. Unknown, used, revoked and
 * expired tokens are all `not_found`, as in `findUsableInvitation`.
 */
export async function previewInvitation(deps: CoreDeps, token: string): Promise<InvitationPreview> {
  const invitation = await findUsableInvitation(deps, token);
  const workspace = await deps.db.workspaces.findOne({ _id: invitation.workspaceId }, { projection: { name: 1 } });
  if (!workspace) throw notFound('Invitation');
  return {
    workspaceName: workspace.name,
    role: invitation.role,
    email: invitation.email,
    expiresAt: invitation.expiresAt,
  };
}

/**
 * The install's main workspace, where admin commands act when no workspace is named: the first
 * owner's first workspace, else one a script made before anyone signed up; null on a bare install.
 */
export async function installWorkspace(
  deps: CoreDeps,
): Promise<{ workspace: WorkspaceDoc; ownerUserId: string } | null> {
  const owner = await deps.db.leases.findOne({ key: FIRST_OWNER_LEASE, releasedAt: null });
  if (!owner) return findUnclaimedScriptedWorkspace(deps);
  const memberships = await deps.db.memberships
    .find({ userId: owner.holder, role: 'owner' })
    .sort({ createdAt: 1 })
    .limit(1)
    .toArray();
  const workspace = memberships[0] && (await deps.db.workspaces.findOne({ _id: memberships[0].workspaceId }));
  return workspace ? { workspace, ownerUserId: owner.holder } : null;
}

/** True for the person who owns the install (its first sign-up): only they may change accounts' plans. */
export async function isInstallOwner(deps: CoreDeps, userId: string): Promise<boolean> {
  return (await deps.db.leases.countDocuments({ key: FIRST_OWNER_LEASE, releasedAt: null, holder: userId })) > 0;
}

/** True until the first person signs up (and so owns the install). */
export async function isFreshInstall(deps: CoreDeps): Promise<boolean> {
  return !(await isLeaseHeld(deps.db, FIRST_OWNER_LEASE, deps.now()));
}

/**
 * Whether someone without an invitation could sign up right now: sign-up is open, or nobody
 * has yet become the install's first owner. A hint for the sign-up page only; `signUp` decides.
 */
export async function canSignUpWithoutInvitation(deps: CoreDeps, openSignup: boolean): Promise<boolean> {
  return openSignup || isFreshInstall(deps);
}
