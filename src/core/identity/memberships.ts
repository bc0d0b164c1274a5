import type { Surface } from '../actor.js';
import { recordAudit } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import type { MembershipRole } from './documents.js';
import { notFound } from '../errors.js';

/** A workspace as its member sees it in a picker. */
export interface WorkspaceMembershipView {
  workspaceId: string;
  accountId: string;
  name: string;
  role: MembershipRole;
}

/** A member as the members page lists them. */
export interface MemberView {
  userId: string;
  name: string;
  email: string | null;
  role: MembershipRole;
  joinedAt: Date;
}

/** The workspaces `userId` belongs to, by name. */
export async function listWorkspacesForUser(deps: CoreDeps, userId: string): Promise<WorkspaceMembershipView[]> {
  const memberships = await deps.db.memberships.find({ userId }).toArray();
  if (memberships.length === 0) return [];
  const roles = new Map(memberships.map((m) => [m.workspaceId, m.role]));
  const workspaces = await deps.db.workspaces.find({ _id: { $in: [...roles.keys()] } }).toArray();
  return workspaces
    .map((w) => ({ workspaceId: w._id, accountId: w.accountId, name: w.name, role: roles.get(w._id) ?? 'member' }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The scope a signed-in user acts in within `workspaceId`. A workspace the user does not
 * belong to is reported as not found, exactly like a workspace that does not exist, so
 * workspace ids cannot be probed.
 */
export async function requireMembership(deps: CoreDeps, userId: string, workspaceId: string): Promise<Scope> {
  const membership = await deps.db.memberships.findOne({ workspaceId, userId });
  const workspace = membership ? await deps.db.workspaces.findOne({ _id: workspaceId }) : null;
  if (!workspace) throw notFound('Workspace');
  return { workspaceId, accountId: workspace.accountId, actor: { type: 'user', userId } };
}

/** The role of the scope's user in the scope's workspace; null for non-user actors. */
export async function roleOf(deps: CoreDeps, scope: Scope): Promise<MembershipRole | null> {
  if (scope.actor.type !== 'user') return null;
  const membership = await deps.db.memberships.findOne({ workspaceId: scope.workspaceId, userId: scope.actor.userId });
  return membership?.role ?? null;
}

/** The workspace's members, owners first. */
export async function listMembers(deps: CoreDeps, scope: Scope): Promise<MemberView[]> {
  const memberships = await deps.db.memberships.find({ workspaceId: scope.workspaceId }).toArray();
  const users = await deps.db.users.find({ _id: { $in: memberships.map((m) => m.userId) } }).toArray();
  const byId = new Map(users.map((u) => [u._id, u]));
  return memberships
    .map((m) => ({
      userId: m.userId,
      name: byId.get(m.userId)?.name ?? '',
      email: byId.get(m.userId)?.email ?? null,
      role: m.role,
      joinedAt: m.createdAt,
    }))
    .sort((a, b) => (a.role === b.role ? a.joinedAt.getTime() - b.joinedAt.getTime() : a.role === 'owner' ? -1 : 1));
}

/**
 * Records that a person became a member of a workspace, as that person (the one whose action made
 * them a member: accepting an invitation, or taking over the scripted workspace at the first sign-up).
 */
export function auditJoin(
  deps: CoreDeps,
  who: { workspaceId: string; accountId: string; userId: string; surface: Surface },
  membership: { membershipId: string; role: MembershipRole; via: 'invitation' | 'first_owner'; invitationId?: string },
): Promise<void> {
  const { workspaceId, accountId, userId, surface } = who;
  return recordAudit(
    deps,
    { workspaceId, accountId, actor: { type: 'user', userId }, surface },
    {
      action: 'member.joined',
      subject: { type: 'member', id: userId },
      details: { role: membership.role, via: membership.via, invitationId: membership.invitationId ?? null },
      // A person may join, leave and join again: each membership is its own entry.
      occurrence: membership.membershipId,
    },
  );
}
