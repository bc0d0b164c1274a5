import type { CoreDeps } from '../context.js';
import type { DeviceDecisionDoc } from './documents.js';
import { isDuplicateKeyError } from '../errors.js';

/** How a pending device authorization is settled, with the approval's scope when approved. */
export type DeviceDecision =
  | { outcome: 'approved'; workspaceId: string; accountId: string; userId: string }
  | { outcome: 'denied'; userId: string }
  | { outcome: 'locked' };

/**
 * Settles a device authorization once. Approve, deny and the near-miss lock can race; the
 * winner is whoever inserts the decision document (its `_id` is the authorization's id), a
 * single insert that is atomic on MongoDB and on the emulator alike. Returns false when
 * someone else decided first.
 */
export async function decideDeviceCode(deps: CoreDeps, deviceId: string, decision: DeviceDecision): Promise<boolean> {
  const doc: DeviceDecisionDoc = {
    _id: deviceId,
    outcome: decision.outcome,
    workspaceId: decision.outcome === 'approved' ? decision.workspaceId : null,
    accountId: decision.outcome === 'approved' ? decision.accountId : null,
    decidedBy: decision.outcome === 'locked' ? null : decision.userId,
    decidedAt: deps.now(),
    redeemedAt: null,
    apiKeyId: null,
  };
  try {
    await deps.db.deviceDecisions.insertOne(doc);
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/** The decision on a device authorization, or null while it is pending. */
export async function findDecision(deps: CoreDeps, deviceId: string): Promise<DeviceDecisionDoc | null> {
  return deps.db.deviceDecisions.findOne({ _id: deviceId });
}
