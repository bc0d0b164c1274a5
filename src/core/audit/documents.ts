// The audit trail: who changed what in a workspace, when, and through which surface.

import type { Actor, ChatUser, Surface } from '../actor.js';

/** The changes the trail records; names are stable (clients filter on them). */
export const AUDIT_ACTIONS = [
  'post.created',
  'post.approved',
  'post.rejected',
  'post.published',
  'post.deleted',
  'plan.changed',
  'api_key.created',
  'api_key.revoked',
  'oauth.granted',
  'platform.connected',
  'platform.disconnected',
  'chat.linked',
  'chat.unlinked',
  'chat.link_changed',
  'webhook.created',
  'webhook.deleted',
  'webhook.secret_rotated',
  'invitation.created',
  'invitation.revoked',
  'member.joined',
  'ai_settings.changed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_SUBJECT_TYPES = [
  'post',
  'account',
  'api_key',
  'oauth_client',
  'platform',
  'chat_link',
  'webhook',
  'invitation',
  'member',
  'workspace',
] as const;
export type AuditSubjectType = (typeof AUDIT_SUBJECT_TYPES)[number];

/** A few plain facts about the change; never a secret (no keys, tokens or codes). */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null>>;

/**
 * One change, written right after it by the code that made it. The `_id` is derived from the
 * change (`<workspace>:<action>:<subject>[:<occurrence>]`), so a retried write stores it once.
 */
export interface AuditEntryDoc {
  _id: string;
  workspaceId: string;
  action: AuditAction;
  actor: Actor;
  /** In chat, the approver who clicked (the link's key is `actor`). */
  chatUser?: ChatUser;
  surface: Surface;
  subject: { type: AuditSubjectType; id: string };
  at: Date;
  details: AuditDetails;
}
