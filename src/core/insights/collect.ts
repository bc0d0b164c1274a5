import type { CoreDeps } from '../context.js';
import { AppError } from '../errors.js';
import type { PlatformDoc } from '../platforms/documents.js';
import { ScopeNotGranted, type Provider } from '../providers/port.js';
import { recordAccountSnapshot } from './account-snapshot.js';
import { earliestLook, walkAccount, type AccountWalk, type DuePost } from './due-posts.js';
import { markUnavailable, recordPostSnapshot } from './record-snapshot.js';
import { unavailableReason } from './unavailable-reasons.js';
import { nextAfter, slotAt, slotDueAt } from './schedule.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** An account's totals are taken at most this often while its posts are collected… */
export const TOTALS_EVERY_MS = HOUR_MS;
/** …and at least this often when none is (so followers are followed between posts). */
export const TOTALS_AT_LEAST_EVERY_MS = 6 * HOUR_MS;
/** A post the network left out is asked again this much later; left out again, it is `unavailable`. */
export const MISS_RECHECK_MS = 15 * MINUTE_MS;
/** TikTok's rate window, the strictest, is a sliding minute: the first backoff waits it out, then doubles up to half an hour. */
export const BACKOFF_FIRST_MS = MINUTE_MS;
export const BACKOFF_MAX_MS = 30 * MINUTE_MS;
/**
 * A network may answer "no numbers yet" this long after publishing (Instagram documents a delay of up to 48 h);
 * past it the post counts as left out, as if the network had not returned it.
 */
export const NOT_YET_AT_MOST_MS = 48 * HOUR_MS;

/** What one run did. */
export interface CollectReport {
  calls: number;
  snapshots: number;
  missed: number;
  unavailable: number;
  totals: boolean;
  /** Why the run stopped early: the network rate-limited or failed it (a backoff follows), or it cannot collect. */
  stopped: 'rate_limited' | 'failed' | 'not_granted' | 'disconnected' | null;
  /** Time spent waiting for the network. */
  providerMs: number;
  /** Time spent in the database collecting posts (not counting waits for publishing). */
  dbMs: number;
  /** The whole run. */
  ms: number;
}

/** What a run keeps between its parts: the walk of the account's members, settled with the run. */
interface Run {
  report: CollectReport;
  walk: AccountWalk | null;
}

/**
 * One collection run of a connected account: every post due now (found by a walk of the account's members,
 * `_id` lookups only: walkAccount), the network's `postsPerRead` ids a read, each answer
 * recorded in the slot then current (recordPostSnapshot, idempotent by slot, so a run repeated after a crash
 * stores nothing twice); a post without numbers yet waits for its next slot (waitForCounts); posts the network
 * leaves out twice, MISS_RECHECK_MS apart, end `unavailable`; then the
 * account's totals when they are due. A 429 or a failure of the network ends the run with the posts still due (no
 * slot is lost: the next run fills the slot current then) and the account backs off; a scope error marks the
 * scope as not granted, which stops that part until the account is reconnected.
 */
export async function collectAccount(deps: CoreDeps, platformId: string): Promise<CollectReport> {
  const report: CollectReport = {
    calls: 0,
    snapshots: 0,
    missed: 0,
    unavailable: 0,
    totals: false,
    stopped: null,
    providerMs: 0,
    dbMs: 0,
    ms: 0,
  };
  const run: Run = { report, walk: null };
  const started = performance.now();
  const platform = await deps.db.platforms.findOne({ _id: platformId });
  const missing = platform ? deps.providers.of(platform).accounts.analyticsAccess(platform).missingScopes : [];
  if (!platform || platform.disabled || platform.refreshNeeded) {
    report.stopped = 'disconnected';
  } else {
    await collectBoth(deps, platform, missing, run);
  }
  await settleRun(deps, platformId, run);
  report.ms = performance.now() - started;
  return report;
}

async function collectBoth(deps: CoreDeps, platform: PlatformDoc, missing: string[], run: Run) {
  const { report } = run;
  const provider = deps.providers.of(platform);
  const { postsScope, totalsScope } = provider.insights;
  try {
    if (!missing.includes(postsScope)) await collectPosts(deps, provider, platform, run);
    if (!missing.includes(totalsScope)) await collectTotals(deps, provider, platform, report);
    if (missing.length === 2) report.stopped = 'not_granted';
  } catch (error) {
    report.stopped = await stoppedBy(deps, platform, error);
  }
}

async function collectPosts(deps: CoreDeps, provider: Provider, platform: PlatformDoc, run: Run): Promise<void> {
  const { report } = run;
  /**
   * Database work in pieces a due post can come between: each waits while publishing runs, waits or falls due in
   * this worker (JobQueue.afterPublishing), so a long run never holds the database from a post.
   */
  const piece = <T>(work: () => Promise<T>): Promise<T> =>
    deps.jobs.afterPublishing(async () => {
      const started = performance.now();
      try {
        return await work();
      } finally {
        report.dbMs += performance.now() - started;
      }
    });
  const walk = await piece(() => walkAccount(deps, platform._id, deps.now()));
  run.walk = walk;
  // Each post's next look follows what the run did with it, so the account's next due time is right when settled.
  const lookAgainAt = (post: DuePost, at: Date | null) =>
    at ? walk.nextLooks.set(post.postId, at) : walk.nextLooks.delete(post.postId);
  const perRead = provider.insights.postsPerRead;
  for (let start = 0; start < walk.due.length; start += perRead) {
    const due = walk.due.slice(start, start + perRead);
    const releaseIds = due.map((post) => post.releaseId);
    const answered = await timed(report, () =>
      provider.insights.readPostCounts(deps, platform, releaseIds, () => (report.calls += 1)),
    );
    const takenAt = deps.now();
    const byId = new Map(answered.map((answer) => [answer.releaseId, answer]));
    for (const post of due) {
      const answer = byId.get(post.releaseId);
      if (answer && 'notYet' in answer && takenAt.getTime() - post.publishedAt.getTime() < NOT_YET_AT_MOST_MS) {
        lookAgainAt(post, await piece(() => waitForCounts(deps, post, takenAt)));
        continue;
      }
      if (!answer || 'notYet' in answer) {
        lookAgainAt(post, await piece(() => recordMiss(deps, platform, post, report)));
        continue;
      }
      const counts = { views: answer.views, likes: answer.likes, comments: answer.comments, shares: answer.shares };
      const outcome = await piece(() => recordPostSnapshot(deps, post.postId, counts, takenAt));
      if (outcome.stored) report.snapshots += 1;
      const next = outcome.status === 'collecting' && outcome.slot !== null;
      lookAgainAt(post, next ? (nextAfter(post.publishedAt, outcome.slot as number)?.dueAt ?? null) : null);
      // Returned again after an absence (its recheck put it past its slot's time): the absence is forgotten.
      if (post.nextDueAt > slotDueAt(post.publishedAt, post.nextSlot)) {
        await piece(() => deps.db.insightMisses.deleteOne({ _id: post.postId }));
      }
    }
  }
}

/**
 * The network has no numbers for the post yet: its slot stays open and it is looked at again when the next slot
 * falls due (the snapshot then fills the slot current at that time; no number is invented for the wait).
 */
async function waitForCounts(deps: CoreDeps, post: DuePost, now: Date): Promise<Date | null> {
  const later = nextAfter(post.publishedAt, slotAt(post.publishedAt, now));
  if (!later) return null;
  await deps.db.postInsights.updateOne(
    { _id: post.postId, status: 'collecting', nextSlot: post.nextSlot },
    { $set: { nextDueAt: later.dueAt, updatedAt: now } },
  );
  return later.dueAt;
}

/**
 * The first absence sets the post aside until its recheck; a second one at least that much later ends it.
 * Answers when the post is looked at again: its recheck, or null once it is `unavailable`.
 */
async function recordMiss(
  deps: CoreDeps,
  platform: PlatformDoc,
  post: DuePost,
  report: CollectReport,
): Promise<Date | null> {
  report.missed += 1;
  const now = deps.now();
  const miss = await deps.db.insightMisses.findOne({ _id: post.postId });
  if (miss && now.getTime() - miss.firstMissedAt.getTime() >= MISS_RECHECK_MS) {
    const reason = unavailableReason(post.nextSlot > 0);
    if (await markUnavailable(deps, post.postId, reason)) report.unavailable += 1;
    await deps.db.insightMisses.deleteOne({ _id: post.postId });
    return null;
  }
  if (!miss) {
    await deps.db.insightMisses.updateOne(
      { _id: post.postId },
      { $setOnInsert: { workspaceId: platform.workspaceId, firstMissedAt: now, misses: 1 } },
      { upsert: true },
    );
  }
  // Asked again at the recheck (the slot stays the same: nothing is skipped but the wait).
  const recheckAt = new Date((miss?.firstMissedAt ?? now).getTime() + MISS_RECHECK_MS);
  await deps.db.postInsights.updateOne(
    { _id: post.postId, status: 'collecting', nextSlot: post.nextSlot },
    { $set: { nextDueAt: recheckAt, updatedAt: now } },
  );
  return recheckAt;
}

async function collectTotals(
  deps: CoreDeps,
  provider: Provider,
  platform: PlatformDoc,
  report: CollectReport,
): Promise<void> {
  const state = await deps.db.insightCollectors.findOne({ _id: platform._id });
  const now = deps.now();
  if (state?.totalsAt && now.getTime() - state.totalsAt.getTime() < TOTALS_EVERY_MS) return;
  const counts = await timed(report, () =>
    provider.insights.readAccountCounts(deps, platform, () => (report.calls += 1)),
  );
  await recordAccountSnapshot(deps, platform._id, counts, deps.now());
  await deps.db.insightCollectors.updateOne(
    { _id: platform._id },
    { $set: { totalsAt: now }, $setOnInsert: { queuedAt: null, backoffUntil: null, failures: 0 } },
    { upsert: true },
  );
  report.totals = true;
}

/** One read from the network, its time counted in the report. */
async function timed<T>(report: CollectReport, read: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await read();
  } finally {
    report.providerMs += performance.now() - started;
  }
}

/** What ended a run early. A scope the network refused is taken off the account, so the planner stops asking. */
async function stoppedBy(deps: CoreDeps, platform: PlatformDoc, error: unknown): Promise<CollectReport['stopped']> {
  if (error instanceof ScopeNotGranted) {
    await markScopeNotGranted(deps, platform, error.scope);
    return 'not_granted';
  }
  if (error instanceof AppError && error.code === 'rate_limited') return 'rate_limited';
  if (error instanceof AppError && error.code === 'conflict') return 'disconnected';
  if (error instanceof AppError) {
    deps.logger.warn({ platformId: platform._id, code: error.code, err: error }, 'insights collection failed');
    return 'failed';
  }
  throw error;
}

/**
 * Records that the network refused `scope` to this connection: the account's analytics read as not granted (from
 * `metadata.scopes`, as the platform list shows them) until a reconnect stores the scopes granted then.
 */
async function markScopeNotGranted(deps: CoreDeps, platform: PlatformDoc, scope: string): Promise<void> {
  await deps.providers.of(platform).accounts.underLease(
    deps,
    platform._id,
    async () => {
      const current = await deps.db.platforms.findOne({ _id: platform._id });
      const scopes = current?.metadata.scopes;
      if (!current || !Array.isArray(scopes) || !scopes.includes(scope)) return;
      await deps.db.platforms.updateOne(
        { _id: platform._id },
        { $set: { 'metadata.scopes': scopes.filter((s) => s !== scope), updatedAt: deps.now() } },
      );
    },
    60_000,
  );
  deps.logger.warn(
    { platformId: platform._id, scope },
    'the network refused an analytics scope; reconnecting grants it',
  );
}

/**
 * Ends the run in the account's state: no run queued any more, a backoff when the network refused or failed it, and
 * where its walk stands with when the account's next post falls due (posts it did not reach are still due).
 */
async function settleRun(deps: CoreDeps, platformId: string, { report, walk }: Run): Promise<void> {
  const failed = report.stopped === 'rate_limited' || report.stopped === 'failed';
  const state = await deps.db.insightCollectors.findOne({ _id: platformId });
  const failures = failed ? (state?.failures ?? 0) + 1 : 0;
  const backoffMs = Math.min(BACKOFF_FIRST_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
  await deps.db.insightCollectors.updateOne(
    { _id: platformId },
    {
      $set: {
        queuedAt: null,
        failures,
        backoffUntil: failed ? new Date(deps.now().getTime() + backoffMs) : null,
        ...(walk ? { walkFrom: walk.walkFrom, walkedTo: walk.walkedTo, dueAt: earliestLook(walk) } : {}),
      },
      $setOnInsert: { totalsAt: null },
    },
    { upsert: true },
  );
}
