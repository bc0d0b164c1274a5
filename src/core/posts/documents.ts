// Stored documents of posts. Ids are UUID strings kept in `_id`.

import type { Requester } from '../actor.js';
import type { DomainEvent } from '../events/documents.js';

/** Where a post is in its life; PUBLISHING is the engine's: an attempt was claimed and runs. */
export type PostState = 'DRAFT' | 'QUEUE' | 'PUBLISHING' | 'PUBLISHED' | 'ERROR';

/**
 * One post of a group (the root, or a thread reply with `parentPostId`). Before PUBLISHING the API
 * writes it under the post's edit lease (`post:<id>`); from PUBLISHING on only the engine does, so
 * no two actors ever rewrite one document at once (FerretDB would lose fields).
 */
export interface PostDoc {
  _id: string;
  workspaceId: string;
  /** The owner account, whose monthly post cap the root's unit was spent from. */
  accountId: string;
  groupId: string;
  parentPostId: string | null;
  /** A root's thread replies, in order (absent or empty: none), so the engine finds them by `_id`. */
  replyIds?: string[];
  /** The platform (API field `integrationId`). */
  platformId: string;
  content: string;
  /** Provider settings as the platform's posting schema names them. */
  settings: Record<string, unknown>;
  mediaIds: string[];
  state: PostState;
  scheduledFor: Date | null;
  /** Thread replies: minutes after the root was published (null: right after it). */
  delayInMinutes: number | null;
  /** When the engine should take the post: scheduledFor, or the moment it was queued for `now`; null for drafts. */
  dueAt: Date | null;
  releaseId: string | null;
  releaseUrl: string | null;
  errorText: string | null;
  /** The post-cap ledger unit spent when the root entered QUEUE, kept for a refund. */
  capSpend: { id: string; pool: string; period: string; slot: number } | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * A root's requester of publishing: whoever created it to publish or approved the draft (absent on
   * drafts and on posts stored before it was kept); the audit entry of its publication names them.
   */
  requestedBy?: Requester;
  /** A root's events (draft created, published, failed), written with the change they describe (src/core/events). */
  events?: DomainEvent[];
}
