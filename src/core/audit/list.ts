import type { Filter } from 'mongodb';
import type { CoreDeps, Scope } from '../context.js';
import { checkedRange, DAY_MS } from '../date-range.js';
import { AppError } from '../errors.js';
import type { AuditEntryDoc } from './documents.js';
import type { AuditEntry, AuditEntryList, ListAuditEntriesInput } from './schema.js';

const DEFAULT_DAYS = 30;

/**
 * A page of the workspace's audit trail, newest first, for its owners only: a member, or a key
 * whose owner is not an owner of the workspace, is refused with `forbidden`.
 */
export async function listAuditEntries(
  deps: CoreDeps,
  scope: Scope,
  input: ListAuditEntriesInput,
): Promise<AuditEntryList> {
  await requireOwner(deps, scope);
  const end = input.endDate === undefined ? deps.now() : new Date(input.endDate);
  const start =
    input.startDate === undefined ? new Date(end.getTime() - DEFAULT_DAYS * DAY_MS) : new Date(input.startDate);
  const range = checkedRange(start, end);
  const filter: Filter<AuditEntryDoc> = { workspaceId: scope.workspaceId, at: { $gte: range.start, $lt: range.end } };
  if (input.action) filter.action = input.action;
  if (input.actor) filter.$or = [{ 'actor.userId': input.actor }, { 'actor.keyId': input.actor }];
  if (input.cursor) {
    const after = decodeCursor(input.cursor);
    filter.$and = [{ $or: [{ at: { $lt: after.at } }, { at: after.at, _id: { $lt: after.id } }] }];
  }
  const docs = await deps.db.audit
    .find(filter)
    .sort({ at: -1, _id: -1 })
    .limit(input.limit + 1)
    .toArray();
  const page = docs.slice(0, input.limit);
  const last = page.at(-1);
  const result: AuditEntryList = { entries: page.map(toEntry) };
  if (docs.length > input.limit && last) result.nextCursor = encodeCursor(last);
  return result;
}

/** Owners only: whoever the scope acts for (a signed-in user, or an API key's owner) must own the workspace. */
async function requireOwner(deps: CoreDeps, scope: Scope): Promise<void> {
  const userId = scope.actor.type === 'system' ? null : scope.actor.userId;
  const membership = userId ? await deps.db.memberships.findOne({ workspaceId: scope.workspaceId, userId }) : null;
  if (membership?.role !== 'owner') {
    throw new AppError('forbidden', "Only the workspace's owners can read its audit trail");
  }
}

function toEntry(doc: AuditEntryDoc): AuditEntry {
  return {
    id: doc._id,
    action: doc.action,
    actor: {
      type: doc.actor.type,
      userId: doc.actor.type === 'system' ? null : doc.actor.userId,
      keyId: doc.actor.type === 'api_key' ? doc.actor.keyId : null,
      chatUser: doc.chatUser ? { ...doc.chatUser } : null,
    },
    surface: doc.surface,
    subject: doc.subject,
    at: doc.at.toISOString(),
    details: doc.details,
  };
}

function encodeCursor(doc: AuditEntryDoc): string {
  return Buffer.from(JSON.stringify({ at: doc.at.toISOString(), id: doc._id })).toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && 'at' in value && 'id' in value) {
      const at = new Date(String(value.at));
      if (typeof value.id === 'string' && !Number.isNaN(at.getTime())) return { at, id: value.id };
    }
  } catch {
    // Falls through to the error below: a cursor is opaque and only ever comes from us.
  }
  throw new AppError('invalid_request', 'The cursor is not valid', [
    { path: ['cursor'], message: 'not a cursor returned by this listing' },
  ]);
}
