import type { CoreDeps } from '../context.js';
import type { PostDoc } from '../posts/documents.js';
import type { PublishAttemptDoc, PublishAttemptPhase } from './documents.js';
import { isDuplicateKeyError } from '../errors.js';
import { publishingSettings } from './settings.js';
import { WORKER_ID } from './worker-id.js';

/** One entry of an attempt's history: what was sent or what TikTok answered (never a token). */
export interface AttemptEvent {
  what: string;
  detail?: string | null;
}

export function attemptId(postId: string, n: number): string {
  return `${postId}#${n}`;
}

/**
 * The post's newest attempt: `_id` lookups #1, #2, … until one is missing (at most maxAttempts + 1 reads,
 * each pushed down by FerretDB), or null when it has none.
 */
export async function latestAttempt(deps: CoreDeps, postId: string): Promise<PublishAttemptDoc | null> {
  let latest: PublishAttemptDoc | null = null;
  for (let n = 1; ; n += 1) {
    const doc = await deps.db.publishAttempts.findOne({ _id: attemptId(postId, n) });
    if (!doc) return latest;
    latest = doc;
  }
}

/** Inserts attempt #n: the claim. Null when another run inserted it first (it won the post). */
export async function claimAttempt(
  deps: CoreDeps,
  post: Pick<PostDoc, '_id' | 'workspaceId'>,
  n: number,
): Promise<PublishAttemptDoc | null> {
  const now = deps.now();
  const attempt: PublishAttemptDoc = {
    _id: attemptId(post._id, n),
    postId: post._id,
    workspaceId: post.workspaceId,
    n,
    worker: WORKER_ID,
    claimedAt: now,
    leaseExpiresAt: new Date(now.getTime() + publishingSettings.attemptLeaseMs),
    phase: 'claimed',
    publishId: null,
    events: [{ at: now, what: 'claimed', detail: `worker ${WORKER_ID}` }],
  };
  try {
    await deps.db.publishAttempts.insertOne(attempt);
    return attempt;
  } catch (error) {
    if (isDuplicateKeyError(error)) return null;
    throw error;
  }
}

/** What recordAttempt writes. */
export interface AttemptChange {
  phase?: PublishAttemptPhase;
  publishId?: string;
  /** Renews the lease to now + leaseMs. */
  leaseMs?: number;
  event?: AttemptEvent;
  /**
   * Writes only while the attempt's lease is live and (when given) its phase is one of these; else
   * throws AttemptLost. A lease that lapsed is never revived: the sweeper may be settling it.
   */
  whileHeld?: { phases?: PublishAttemptPhase[] };
}

/** The attempt's lease lapsed (or its phase moved on) before a write that needed it: the sweeper owns it now. */
export class AttemptLost extends Error {
  constructor(id: string) {
    super(`publish attempt ${id} lost its lease`);
    this.name = 'AttemptLost';
  }
}

// This process's pending writes per attempt: the holder's lease renewals run on a timer beside its other
// writes, and FerretDB may lose fields of concurrent updates of one document, so they go one at a time.
const pendingWrites = new Map<string, Promise<void>>();

/**
 * Writes the attempt's progress (only its holder does, and one write at a time, so no concurrent update loses
 * fields): a new phase, the publishId, a renewed lease, and an event appended to its history.
 */
export function recordAttempt(
  deps: CoreDeps,
  attempt: Pick<PublishAttemptDoc, '_id'>,
  change: AttemptChange,
): Promise<void> {
  const previous = pendingWrites.get(attempt._id) ?? Promise.resolve();
  const write = previous.catch(() => undefined).then(() => writeAttempt(deps, attempt._id, change));
  const tail = write.catch(() => undefined);
  pendingWrites.set(attempt._id, tail);
  void tail.then(() => {
    if (pendingWrites.get(attempt._id) === tail) pendingWrites.delete(attempt._id);
  });
  return write;
}

/** Waits for this process's pending writes of the attempt (before handing it to another writer). */
export async function attemptWritesSettled(attemptIdValue: string): Promise<void> {
  await pendingWrites.get(attemptIdValue);
}

async function writeAttempt(deps: CoreDeps, id: string, change: AttemptChange): Promise<void> {
  const now = deps.now();
  const set: Partial<PublishAttemptDoc> = {};
  if (change.phase) set.phase = change.phase;
  if (change.publishId) set.publishId = change.publishId;
  if (change.leaseMs !== undefined) set.leaseExpiresAt = new Date(now.getTime() + change.leaseMs);
  const event = change.event && { at: now, what: change.event.what, detail: change.event.detail ?? null };
  const held = change.whileHeld;
  const filter = held
    ? { _id: id, leaseExpiresAt: { $gt: now }, ...(held.phases ? { phase: { $in: held.phases } } : {}) }
    : { _id: id };
  // Empty operators are left out: not every server accepts `$set: {}`.
  const result = await deps.db.publishAttempts.updateOne(filter, {
    ...(Object.keys(set).length > 0 ? { $set: set } : {}),
    ...(event ? { $push: { events: event } } : {}),
  });
  if (held && result.matchedCount === 0) throw new AttemptLost(id);
}
