import type { CoreDeps, Scope } from '../context.js';
import type { DeviceLoginOrigin } from './documents.js';
import { AppError } from '../errors.js';
import { decideDeviceCode } from './decision.js';
import { matchUserCode, type CodeSubmitter } from './guess-guard.js';
import { formatUserCode } from './user-code.js';

/** What the verification page shows about a code before the person decides. */
export interface DeviceCodeDescription {
  userCode: string;
  clientName: string | null;
  /** Where the login was started, so the page can say where to go back to. */
  origin: DeviceLoginOrigin;
  expiresAt: Date;
  status: 'pending' | 'approved' | 'denied';
  /** When the approved key was handed to the device; null until then. */
  redeemedAt: Date | null;
}

/**
 * Approves the device authorization `userCode` for the scope's workspace: the device's next
 * poll receives a key scoped to it. `scope` must come from `requireMembership`, so the
 * workspace is one the user belongs to. Guessing is guarded as `matchUserCode` describes.
 */
export async function approveDeviceCode(
  deps: CoreDeps,
  scope: Scope,
  input: { userCode: string; address: string },
): Promise<{ status: 'approved'; organizationId: string }> {
  const submitter = submitterOf(scope, input.address);
  const { doc, decision } = await matchUserCode(deps, submitter, input.userCode);
  const approved = { status: 'approved' as const, organizationId: scope.workspaceId };
  if (decision) {
    if (decision.outcome === 'approved' && decision.workspaceId === scope.workspaceId) return approved;
    throw alreadyDecided();
  }
  const decided = await decideDeviceCode(deps, doc._id, {
    outcome: 'approved',
    workspaceId: scope.workspaceId,
    accountId: scope.accountId,
    userId: submitter.userId,
  });
  if (!decided) throw alreadyDecided();
  deps.logger.info(
    { deviceId: doc._id, workspaceId: scope.workspaceId, userId: submitter.userId },
    'device code approved',
  );
  return approved;
}

/** Denies the device authorization `userCode`; the device's next poll gets `access_denied`. */
export async function denyDeviceCode(
  deps: CoreDeps,
  submitter: CodeSubmitter,
  input: { userCode: string },
): Promise<{ status: 'denied' }> {
  const { doc, decision } = await matchUserCode(deps, submitter, input.userCode);
  if (decision) {
    if (decision.outcome === 'denied') return { status: 'denied' };
    throw alreadyDecided();
  }
  if (!(await decideDeviceCode(deps, doc._id, { outcome: 'denied', userId: submitter.userId }))) throw alreadyDecided();
  deps.logger.info({ deviceId: doc._id, userId: submitter.userId }, 'device code denied');
  return { status: 'denied' };
}

/**
 * Describes a code for the verification page (client name, expiry). It is a lookup by code,
 * so it goes through the same guessing guard as approving: unknown codes are `not_found`
 * and count as wrong tries, and nothing else is revealed about them.
 */
export async function describeDeviceCode(
  deps: CoreDeps,
  submitter: CodeSubmitter,
  userCode: string,
): Promise<DeviceCodeDescription> {
  const { doc, decision } = await matchUserCode(deps, submitter, userCode);
  return {
    userCode: formatUserCode(doc.prefix, doc.userCode),
    clientName: doc.clientName,
    origin: doc.origin ?? 'device',
    expiresAt: doc.expiresAt,
    status: decision?.outcome === 'denied' ? 'denied' : decision ? 'approved' : 'pending',
    redeemedAt: decision?.redeemedAt ?? null,
  };
}

function submitterOf(scope: Scope, address: string): CodeSubmitter {
  if (scope.actor.type !== 'user') throw new AppError('forbidden', 'Only a signed-in person can approve a device');
  return { userId: scope.actor.userId, address };
}

function alreadyDecided(): AppError {
  return new AppError('conflict', 'This code has already been approved or denied');
}
