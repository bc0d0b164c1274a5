import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger.js';
import type { Collections } from '../db/collections.js';
import { isDuplicateKeyError } from '../errors.js';
import { logFailure } from '../db/unreachable.js';

/**
 * How old this process's view of revocations may be when it trusts a cached key. Revoking a key
 * answers only after this long, so by then every replica has reread the revision (or stops trusting
 * its cache): a revoked key fails on its next use everywhere, without a read per request.
 */
export const REVOCATION_VIEW_MS = 500;
// Last-used times are kept to the minute (listings show no more), written in batches.
const LAST_USED_RESOLUTION_MS = 60_000;
const USAGE_FLUSH_MS = 5_000;
const MAX_KEYS = 10_000;
// The view is kept fresh from a timer while keys are in use, and left to lapse this long after the last lookup.
const KEEP_FRESH_AFTER_USE_MS = 5_000;
const REVISION_ID = 'api-keys';

/** What a verified key grants, as remembered between requests. */
export interface VerifiedKey {
  keyId: string;
  workspaceId: string;
  accountId: string;
  userId: string | null;
}

/**
 * The process's memory of verified API keys, by the key's hash, and its batched last-used times.
 * Each revocation writes a new random revision; a process rereads it at most every
 * REVOCATION_VIEW_MS and forgets every key when it changed.
 */
export class ApiKeyCache {
  private readonly keys = new Map<string, VerifiedKey>();
  private revision: string | null = null;
  // Bumped whenever the keys are forgotten: a lookup begun before then must not store its answer.
  private generation = 0;
  private viewStartedAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;
  private rereadTimer: NodeJS.Timeout | undefined;
  private lastLookupAt = Number.NEGATIVE_INFINITY;
  // Set by the last reread that failed: the next waits half the bound instead of following at once.
  private lastReadFailed = false;
  // Set at shutdown: the database is about to close, so nothing is read from a timer any more.
  private closed = false;
  private readonly pendingUse = new Map<string, Date>();
  private readonly writtenUse = new Map<string, number>();
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Collections,
    private readonly logger: Logger,
  ) {}

  /**
   * The remembered key for `hash`, if the view of revocations is fresh; `generation` is what to pass
   * to `remember` after reading the key from the database.
   */
  async lookup(hash: string): Promise<{ key: VerifiedKey | undefined; generation: number }> {
    this.lastLookupAt = performance.now();
    this.keepFresh();
    // After a pause (or a read slower than the bound) the view is stale: this lookup reads it itself.
    if (!this.viewIsFresh()) await (this.reading ??= this.rereadRevision());
    // A database slower than the bound: trust nothing remembered, the caller reads the key itself.
    if (!this.viewIsFresh()) return { key: undefined, generation: -1 };
    return { key: this.keys.get(hash), generation: this.generation };
  }

  /** Remembers a key read from the database, unless a revocation came in since `generation`. */
  remember(hash: string, key: VerifiedKey, generation: number): void {
    if (generation !== this.generation) return;
    if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value as string);
    this.keys.set(hash, key);
  }

  /** Called after a key's `revokedAt` is written: announces it, then waits until every process has seen it. */
  async revoked(now: Date): Promise<void> {
    const update = { $set: { nonce: randomUUID(), changedAt: now } };
    try {
      await this.db.apiKeyRevisions.updateOne({ _id: REVISION_ID }, update, { upsert: true });
    } catch (error) {
      // The first two revocations of an install at once: the loser's upsert becomes an update.
      if (!isDuplicateKeyError(error)) throw error;
      await this.db.apiKeyRevisions.updateOne({ _id: REVISION_ID }, update);
    }
    this.forget();
    await sleep(REVOCATION_VIEW_MS + 50);
  }

  /** Notes a use of `keyId` at `at`; written with others within a few seconds, once a minute per key. */
  used(keyId: string, at: Date): void {
    const written = this.writtenUse.get(keyId);
    if (written !== undefined && at.getTime() - written < LAST_USED_RESOLUTION_MS) return;
    this.pendingUse.set(keyId, at);
    this.flushTimer ??= setTimeout(() => void this.flush(), USAGE_FLUSH_MS).unref();
  }

  /** Writes the pending last-used times now (from the usage timer; tests); resolves once written. */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = [...this.pendingUse];
    this.pendingUse.clear();
    if (batch.length > 0) this.flushing = this.flushing.then(() => this.write(batch));
    await this.flushing;
  }

  /**
   * Shutdown, before the database closes: stops the rereads (a timer firing on a closed client would
   * fail at once, again and again), writes the pending last-used times and lets a read in flight finish.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.rereadTimer);
    this.rereadTimer = undefined;
    await Promise.all([this.flush(), this.reading]);
  }

  private async write(batch: Array<[string, Date]>): Promise<void> {
    for (const [keyId, at] of batch) this.writtenUse.set(keyId, at.getTime());
    const updates = batch.map(([keyId, at]) => ({
      updateOne: { filter: { _id: keyId }, update: { $max: { lastUsedAt: at } }, upsert: true },
    }));
    try {
      await this.db.apiKeyUsage.bulkWrite(updates, { ordered: false });
    } catch (error) {
      // Two processes' first writes of one key at once: the other's time is as good as ours.
      if (isDuplicateKeyError(error)) return;
      for (const [keyId] of batch) this.writtenUse.delete(keyId);
      logFailure(this.logger, 'warn', error, { keys: batch.length }, 'writing API key last-used times failed');
    }
  }

  /**
   * Rereads the revision from half the bound on, from a timer of its own rather than inside a request:
   * a read sent by a request went out just ahead of that request's own query and delayed it (one request
   * in fifty at 200/s, the p99). Stops once no key was looked up for KEEP_FRESH_AFTER_USE_MS.
   */
  private keepFresh(): void {
    if (this.closed || this.rereadTimer !== undefined) return;
    const dueInMs = this.lastReadFailed
      ? REVOCATION_VIEW_MS / 2
      : this.viewStartedAt + REVOCATION_VIEW_MS / 2 - performance.now();
    this.rereadTimer = setTimeout(
      () => {
        this.rereadTimer = undefined;
        if (performance.now() - this.lastLookupAt > KEEP_FRESH_AFTER_USE_MS) return;
        void (this.reading ??= this.rereadRevision()).then(() => this.keepFresh());
      },
      Math.max(0, dueInMs),
    ).unref();
  }

  private viewIsFresh(): boolean {
    return performance.now() - this.viewStartedAt <= REVOCATION_VIEW_MS;
  }

  private rereadRevision(): Promise<void> {
    return this.readRevision()
      .then(() => {
        this.lastReadFailed = false;
      })
      .catch((error: unknown) => {
        this.lastReadFailed = true;
        logFailure(this.logger, 'warn', error, {}, 'reading the API key revision failed');
      })
      .finally(() => (this.reading = null));
  }

  private async readRevision(): Promise<void> {
    const started = performance.now();
    const doc = await this.db.apiKeyRevisions.findOne({ _id: REVISION_ID });
    const revision = doc?.nonce ?? null;
    if (revision !== this.revision) {
      this.revision = revision;
      this.forget();
    }
    this.viewStartedAt = Math.max(this.viewStartedAt, started);
  }

  private forget(): void {
    this.keys.clear();
    this.generation += 1;
  }
}
