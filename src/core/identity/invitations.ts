import { randomUUID } from 'node:crypto';
import type { Surface } from '../actor.js';
import { recordAudit } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import { claimLease } from '../db/leases.js';
import type { InvitationDoc, MembershipRole } from './documents.js';
import { AppError, notFound } from '../errors.js';
import { auditJoin, roleOf } from './memberships.js';
import { normalizeEmail } from './schema.js';
import { hashSecret, newSecretToken } from './tokens.js';

export const INVITATION_TOKEN_PREFIX = 'pdi_';
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** An invitation as the members page lists it: never the token. */
export interface InvitationView {
  id: string;
  email: string | null;
  role: MembershipRole;
  createdAt: Date;
  expiresAt: Date;
}

/** What accepting an invitation joined. */
export interface AcceptedInvitation {
  workspaceId: string;
  accountId: string;
  role: MembershipRole;
}

/**
 * Invites someone to the scope's workspace; only its owners (or the system) may. The token
 * for the link is returned once; only its hash is stored. It expires in 7 days and works once.
 */
export async function createInvitation(
  deps: CoreDeps,
  scope: Scope,
  input: { email?: string | undefined; role: MembershipRole },
): Promise<{ token: string; invitation: InvitationView }> {
  await assertOwner(deps, scope);
  const token = newSecretToken(INVITATION_TOKEN_PREFIX);
  const now = deps.now();
  const doc: InvitationDoc = {
    _id: randomUUID(),
    workspaceId: scope.workspaceId,
    accountId: scope.accountId,
    email: input.email === undefined ? null : normalizeEmail(input.email),
    role: input.role,
    hash: hashSecret(token),
    createdBy: scope.actor.type === 'user' ? scope.actor.userId : 'system',
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    acceptedAt: null,
    acceptedBy: null,
    revokedAt: null,
  };
  await deps.db.invitations.insertOne(doc);
  await recordAudit(deps, scope, {
    action: 'invitation.created',
    subject: { type: 'invitation', id: doc._id },
    details: { role: doc.role, email: doc.email },
  });
  return { token, invitation: toView(doc) };
}

/** The invitation `token` opens while it is still usable; `not_found` when unknown, used, revoked or expired. */
export async function findUsableInvitation(deps: CoreDeps, token: string): Promise<InvitationDoc> {
  const doc = await deps.db.invitations.findOne({ hash: hashSecret(token) });
  if (!doc || doc.acceptedAt || doc.revokedAt || doc.expiresAt <= deps.now()) throw notFound('Invitation');
  return doc;
}

/** The lease whose single claim accepts an invitation (deleted with it by the purge). */
export function invitationLeaseKey(invitationId: string): string {
  return `invite:${invitationId}`;
}

/**
 * Makes `userId` a member through the invitation `token`, on the web pages unless `surface` says
 * otherwise (`POST /auth/signup` with an invitation). Single use is decided by claiming
 * the lease `invite:<id>` (one unique insert), not by reading `acceptedAt`, so two people
 * racing with one link cannot both get in.
 */
export async function acceptInvitation(
  deps: CoreDeps,
  input: { token: string; userId: string; surface?: Surface | undefined },
): Promise<AcceptedInvitation> {
  const invitation = await findUsableInvitation(deps, input.token);
  const user = await deps.db.users.findOne({ _id: input.userId });
  if (!user) throw notFound('User');
  if (invitation.email !== null && invitation.email !== user.email) {
    throw new AppError('forbidden', 'This invitation was sent to another email address');
  }
  if (await deps.db.memberships.findOne({ workspaceId: invitation.workspaceId, userId: user._id })) {
    throw new AppError('conflict', 'You are already a member of this workspace');
  }
  const now = deps.now();
  if (!(await claimLease(deps.db, invitationLeaseKey(invitation._id), { holder: user._id, now }))) {
    throw notFound('Invitation');
  }
  const membershipId = randomUUID();
  await deps.db.memberships.insertOne({
    _id: membershipId,
    workspaceId: invitation.workspaceId,
    userId: user._id,
    role: invitation.role,
    createdAt: now,
  });
  await deps.db.invitations.updateOne({ _id: invitation._id }, { $set: { acceptedAt: now, acceptedBy: user._id } });
  await auditJoin(
    deps,
    {
      workspaceId: invitation.workspaceId,
      accountId: invitation.accountId,
      userId: user._id,
      surface: input.surface ?? 'web',
    },
    { membershipId, role: invitation.role, via: 'invitation', invitationId: invitation._id },
  );
  deps.logger.info(
    { invitationId: invitation._id, userId: user._id, workspaceId: invitation.workspaceId },
    'invitation accepted',
  );
  return { workspaceId: invitation.workspaceId, accountId: invitation.accountId, role: invitation.role };
}

/** The workspace's open invitations (not accepted, revoked or expired), newest first. */
export async function listInvitations(deps: CoreDeps, scope: Scope): Promise<InvitationView[]> {
  const docs = await deps.db.invitations
    .find({ workspaceId: scope.workspaceId, acceptedAt: null, revokedAt: null, expiresAt: { $gt: deps.now() } })
    .sort({ createdAt: -1 })
    .toArray();
  return docs.map(toView);
}

/** Withdraws an open invitation of the scope's workspace (owners only). */
export async function revokeInvitation(deps: CoreDeps, scope: Scope, invitationId: string): Promise<void> {
  await assertOwner(deps, scope);
  const result = await deps.db.invitations.updateOne(
    { _id: invitationId, workspaceId: scope.workspaceId, acceptedAt: null, revokedAt: null },
    { $set: { revokedAt: deps.now() } },
  );
  if (result.matchedCount === 0) throw notFound('Invitation');
  await recordAudit(deps, scope, { action: 'invitation.revoked', subject: { type: 'invitation', id: invitationId } });
}

async function assertOwner(deps: CoreDeps, scope: Scope): Promise<void> {
  if (scope.actor.type === 'system') return;
  if ((await roleOf(deps, scope)) !== 'owner') {
    throw new AppError('forbidden', 'Only an owner of this workspace can manage invitations');
  }
}

function toView(doc: InvitationDoc): InvitationView {
  return { id: doc._id, email: doc.email, role: doc.role, createdAt: doc.createdAt, expiresAt: doc.expiresAt };
}
