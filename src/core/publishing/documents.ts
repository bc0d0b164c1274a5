// Stored documents of the publishing engine's attempts. Ids are UUID strings kept in `_id`.

/**
 * How far one publishing attempt got; `init_sent` is written before the init request leaves. `held`: it created
 * nothing because the network's quota was used up, and the post waits in QUEUE (a hold uses up no attempt).
 */
export type PublishAttemptPhase =
  'claimed' | 'init_sent' | 'init_answered' | 'created_nothing' | 'held' | 'outcome_unknown';

/** Whether an attempt in `phase` certainly left nothing at the network, so another attempt may follow it. */
export function createdNothing(phase: PublishAttemptPhase): boolean {
  return phase === 'created_nothing' || phase === 'held';
}

/**
 * One attempt to publish a post, `_id` = `${postId}#${n}`: inserting it is the claim (one winner).
 * Attempt n+1 may exist only when attempt n ended `created_nothing`, so TikTok never gets a second
 * init for a post it may already have. Only the attempt's holder writes it after the insert.
 */
export interface PublishAttemptDoc {
  _id: string;
  postId: string;
  workspaceId: string;
  n: number;
  /** The worker that holds it (a process-unique id). */
  worker: string;
  claimedAt: Date;
  /** Renewed while the worker works; past it, the sweeper may resolve the attempt. */
  leaseExpiresAt: Date;
  phase: PublishAttemptPhase;
  /** TikTok's publish_id, stored the moment the init answer arrives. */
  publishId: string | null;
  /** What happened, in order: what was sent, what TikTok answered. No tokens. */
  events: { at: Date; what: string; detail: string | null }[];
}
