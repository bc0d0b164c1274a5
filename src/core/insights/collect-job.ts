import { z } from 'zod';
import type { CoreDeps } from '../context.js';
import { isDuplicateKeyError } from '../errors.js';
import { defineJob } from '../jobs/define-job.js';
import { defineJobHandle } from '../jobs/job-handle.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';
import { collectAccount, TOTALS_AT_LEAST_EVERY_MS } from './collect.js';
import type { InsightCollectorDoc } from './collector-documents.js';
import { memberId } from './members.js';

/** How often the planner looks for accounts with posts due (a post's first snapshot is due at PUBLISHED). */
export const PLAN_COLLECTION_EVERY_MS = 60_000;
/**
 * A queued run not settled after this long was lost (its task failed for good): the planner queues another.
 * Longer than the longest a reporting task is held for publishing (5 min) plus a killed worker's claim and
 * the lane's recovery read (a minute), so a run that is only waiting is never queued twice.
 */
export const QUEUE_STALE_MS = 15 * 60_000;

/**
 * One account's collection run. On the due-task lane as `reporting` work: it is held while a publishing task
 * runs, waits or falls due in the worker, and a few run at a time, so publishing always goes first. A worker
 * killed mid-run leaves the task open; another worker runs it again once its claim lapses, and the snapshots
 * already stored are kept once (their `_id` is the post's and the slot's).
 */
export const collectInsightsHandle = defineJobHandle({
  name: 'insights.collect',
  data: z.object({ platformId: z.string().min(1) }),
  queue: 'due-tasks',
  priority: 'reporting',
});

export const collectInsightsJob = defineJob({
  ...collectInsightsHandle,
  // The network's refusals end the run with a backoff of its own (collect.ts); this retries database failures.
  retry: { maxRetries: 2, delayMs: 30_000, maxDelayMs: 120_000 },
  perform: async ({ platformId }, { deps }) => {
    const report = await collectAccount(deps, platformId);
    if (report.calls > 0 || report.stopped) deps.logger.info({ platformId, ...report }, 'insights collected');
  },
});

/**
 * Queues a run of the account unless one is queued (and not stale) or it is backing off; true when it did.
 * Compare-and-set on the account's state, so the planner and the published-post consumer never both queue.
 */
export async function requestCollection(deps: CoreDeps, platformId: string): Promise<boolean> {
  const now = deps.now();
  const state = await deps.db.insightCollectors.findOne({ _id: platformId });
  if (state && !mayQueue(state, now)) return false;
  if (state) {
    const claimed = await deps.db.insightCollectors.updateOne(
      { _id: platformId, queuedAt: state.queuedAt },
      { $set: { queuedAt: now } },
    );
    if (claimed.matchedCount === 0) return false;
  } else {
    try {
      await deps.db.insightCollectors.insertOne({
        _id: platformId,
        queuedAt: now,
        backoffUntil: null,
        failures: 0,
        totalsAt: null,
      });
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }
  await deps.jobs.enqueue(collectInsightsHandle, { platformId }, { runAt: now });
  return true;
}

function mayQueue(state: InsightCollectorDoc, now: Date): boolean {
  if (state.backoffUntil && state.backoffUntil > now) return false;
  return !state.queuedAt || now.getTime() - state.queuedAt.getTime() >= QUEUE_STALE_MS;
}

/**
 * Queues a run for every connected account with a post due, or whose totals are older than
 * TOTALS_AT_LEAST_EVERY_MS, skipping accounts without the analytics scopes. Reads the platforms and the
 * collection states (one small document per account), then at most one `_id` lookup per account: never
 * `post_insights`, whatever the number of records. It only reports, so each part waits while publishing
 * runs, waits or falls due in this worker (JobQueue.afterPublishing): a pass never comes between due posts.
 */
export async function planCollection(deps: CoreDeps): Promise<number> {
  const now = deps.now();
  const { platforms, states } = await deps.jobs.afterPublishing(async () => ({
    platforms: await deps.db.platforms
      .find({ disabled: false, refreshNeeded: false }, { projection: { provider: 1, metadata: 1 } })
      .toArray(),
    states: new Map((await deps.db.insightCollectors.find({}).toArray()).map((state) => [state._id, state])),
  }));
  let queued = 0;
  for (const platform of platforms) {
    const state = states.get(platform._id);
    if (state && !mayQueue(state, now)) continue;
    const provider = deps.providers.of(platform);
    const { missingScopes } = provider.accounts.analyticsAccess(platform);
    const totalsAt = state?.totalsAt;
    const wantsTotals =
      !missingScopes.includes(provider.insights.totalsScope) &&
      (!totalsAt || now.getTime() - totalsAt.getTime() >= TOTALS_AT_LEAST_EVERY_MS);
    const wantsPosts = !missingScopes.includes(provider.insights.postsScope);
    if (!wantsTotals && !wantsPosts) continue;
    const requested = await deps.jobs.afterPublishing(
      async () =>
        (wantsTotals || (await postsWaiting(deps, platform._id, state, now))) &&
        (await requestCollection(deps, platform._id)),
    );
    if (requested) queued += 1;
  }
  return queued;
}

/**
 * Whether an account's posts want a run: one falls due, as the last run left them, or a member was added since
 * its walk (a post opened, or released late, after it): the one `_id` lookup of the member where it stopped.
 */
async function postsWaiting(
  deps: CoreDeps,
  platformId: string,
  state: InsightCollectorDoc | undefined,
  now: Date,
): Promise<boolean> {
  if (state?.dueAt && state.dueAt <= now) return true;
  const added = await deps.db.insightMembers.findOne(
    { _id: memberId(platformId, state?.walkedTo ?? 0) },
    { projection: { _id: 1 } },
  );
  return added !== null;
}

/** The planner, run by housekeeping every PLAN_COLLECTION_EVERY_MS. */
export const planCollectionJob = definePeriodicJob('insights.plan-collection', async (deps) => {
  await planCollection(deps);
});
