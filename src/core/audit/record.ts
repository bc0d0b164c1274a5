import type { Requester } from '../actor.js';
import type { CoreDeps, Scope } from '../context.js';
import { isDuplicateKeyError } from '../errors.js';
import type { AuditAction, AuditDetails, AuditEntryDoc, AuditSubjectType } from './documents.js';

/** What changed; the scope says who did it, where and through which surface. */
export interface AuditChange {
  action: AuditAction;
  subject: { type: AuditSubjectType; id: string };
  details?: AuditDetails;
  /**
   * Tells apart changes of one subject that may happen more than once (a plan changed twice);
   * omitted for those that happen once per subject (a key is revoked once).
   */
  occurrence?: string;
}

/**
 * Writes the trail's entry for a change that has just been stored. Called only after the change
 * succeeded, so no entry names a change that did not happen; its id is derived from the change,
 * so a retry of the same change (a second click, a redelivery) adds nothing.
 */
export async function recordAudit(deps: CoreDeps, scope: Scope, change: AuditChange): Promise<void> {
  const occurrence = change.occurrence === undefined ? '' : `:${change.occurrence}`;
  const entry: AuditEntryDoc = {
    _id: `${scope.workspaceId}:${change.action}:${change.subject.id}${occurrence}`,
    workspaceId: scope.workspaceId,
    action: change.action,
    actor: scope.actor,
    ...(scope.chatUser ? { chatUser: scope.chatUser } : {}),
    surface: scope.surface ?? 'system',
    subject: change.subject,
    at: deps.now(),
    details: change.details ?? {},
  };
  try {
    await deps.db.audit.insertOne(entry);
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}

/** Who the scope acts for, to keep on work the system finishes later (see `requesterScope`). */
export function requesterOf(scope: Scope): Requester {
  return {
    actor: scope.actor,
    surface: scope.surface ?? 'system',
    ...(scope.chatUser ? { chatUser: scope.chatUser } : {}),
  };
}

/**
 * The scope an entry for work the system carried out is written in: the requester it kept, so the
 * trail names the key (or person, or chat user) that asked; the system's own when none was kept
 * (documents stored before requesters were).
 */
export function requesterScope(
  owner: { workspaceId: string; accountId: string },
  requester: Requester | undefined,
): Scope {
  const { workspaceId, accountId } = owner;
  if (!requester) return { workspaceId, accountId, actor: { type: 'system' } };
  return { workspaceId, accountId, ...requester };
}
