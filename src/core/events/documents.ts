// Stored documents of domain events: recorded on the document they describe, relayed to the outbox.

import type { Actor } from '../actor.js';
import type { ProviderId } from '../platforms/documents.js';

export const EVENT_TYPES = [
  'draft.created',
  'post.published',
  'post.failed',
  'generation.done',
  'generation.failed',
  'post.metrics_24h',
  'post.metrics_7d',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Something that happened in a workspace. It is written inside the same update as the change it
 * describes (an `events` entry of the post or generation job), so a change is never stored without
 * its event; the id is derived from the subject and the type, so relaying it twice stores it once.
 */
export interface DomainEvent {
  id: string;
  type: EventType;
  workspaceId: string;
  /**
   * The post (root) or generation job the event is about. `post.metrics_24h` / `post.metrics_7d`: a
   * published post's first snapshot at or past that age was recorded (src/core/insights/milestones.ts).
   */
  subjectId: string;
  /** Who caused it, for the people who read about it (a draft's card names its author). */
  actor: Actor;
  /** The generation job a draft came from, when it did. */
  generationJobId?: string;
  /** A post event's network (its account's `provider`); absent on other events and on events stored before it. */
  provider?: ProviderId;
  at: Date;
}

/** An event in the outbox (`_id` = the event's id), delivered to the consumers by a due task. */
export interface OutboxDoc extends Omit<DomainEvent, 'id'> {
  _id: string;
  relayedAt: Date;
  /** A delivery task was enqueued; the sweep enqueues one for events still false after a while. */
  dispatched: boolean;
}

/** One consumer's handling of one event, done (`_id` = `<consumer>:<event id>`). */
export interface EventReceiptDoc {
  _id: string;
  at: Date;
}

/** How far the relay sweep has looked at recently changed documents (`_id` = the collection). */
export interface RelayMarkDoc {
  _id: string;
  scannedTo: Date;
}
