import { createHash } from 'node:crypto';
import type { ChatUser } from '../actor.js';
import { recordAudit } from '../audit/record.js';
import type { AuditDetails } from '../audit/documents.js';
import type { CoreDeps, Scope } from '../context.js';
import type { ChatLinkDoc } from './documents.js';

/** A person in a chat workspace, as the platform names them. */
export interface ChatPerson {
  readonly id: string;
  readonly name: string;
}

/** The settings of a link a person can change (`/postdeck approvals here`, `approvers`, `timezone`). */
export type LinkSettings = Pick<ChatLinkDoc, 'approvalsChannelId' | 'approvers' | 'timeZone'>;

/**
 * Audits a change of a chat link in its Postdeck workspace: made with the link's key (whatever became of
 * it since), through the link's platform, on behalf of the person who typed the command. Each change of a
 * link is its own entry (`occurrence` = when, and a digest of what), as a link can be made, changed and
 * unlinked many times.
 */
export function auditLinkChange(
  deps: CoreDeps,
  link: ChatLinkDoc,
  person: ChatPerson,
  action: 'chat.linked' | 'chat.unlinked' | 'chat.link_changed',
  details: AuditDetails = {},
): Promise<void> {
  const scope = linkPersonScope(link, person);
  const facts = { platform: link.platform, teamId: link.teamId, ...details };
  const digest = createHash('sha256').update(JSON.stringify(facts)).digest('hex').slice(0, 8);
  return recordAudit(deps, scope, {
    action,
    subject: { type: 'chat_link', id: link._id },
    details: facts,
    occurrence: `${deps.now().toISOString()}:${digest}`,
  });
}

/**
 * The scope of a change a person makes to a link by a command: the link's key (whatever became of it
 * since), through the link's platform, on behalf of that person.
 */
export function linkPersonScope(link: ChatLinkDoc, person: ChatPerson): Scope {
  const chatUser: ChatUser = { platform: link.platform, id: person.id, name: person.name };
  return {
    workspaceId: link.workspaceId,
    accountId: '',
    actor: { type: 'api_key', keyId: link.apiKeyId, userId: link.linkedByUserId },
    surface: link.platform,
    chatUser,
  };
}

/** The settings `after` changed from `before`, in the entry's plain facts (approvers as a list of ids). */
export function changedSettings(before: LinkSettings, after: LinkSettings): AuditDetails {
  const changed: Record<string, string | null> = {};
  if (after.approvalsChannelId !== before.approvalsChannelId) changed.approvalsChannelId = after.approvalsChannelId;
  if (after.timeZone !== before.timeZone) changed.timeZone = after.timeZone;
  if (after.approvers.join(',') !== before.approvers.join(',')) changed.approvers = after.approvers.join(',');
  return changed;
}
