import type { Logger } from '../../logger.js';
import type { CoreDeps } from '../context.js';
import type { Collections } from '../db/collections.js';
import type { DueTaskDoc } from './documents.js';
import { claimLease, renewLease } from '../db/leases.js';
import type { AnyJobDefinition } from './define-job.js';
import type { JobHandle } from './job-handle.js';
import { heldLongEnough, holdReports } from './held-reports.js';
import { createTaskInserter, taskId } from './task-inserter.js';
import { createTaskPools, RANK } from './task-pools.js';
import { logFailure } from '../db/unreachable.js';

/** Tuning of the lane; defaults suit production, tests shorten them. */
export interface DueTaskLaneOptions {
  db: Pick<Collections, 'dueTasks' | 'leases' | 'positionHints'>;
  logger: Logger;
  definitions: readonly AnyJobDefinition[];
  /** How often a worker looks for tasks due soon. */
  pollIntervalMs: number;
  /** Tasks this process runs at once. */
  concurrency: number;
  /** Of those, `reporting` tasks at most (default a quarter, at least one): the rest stay free for posts. */
  reportingConcurrency?: number;
  /** `outbound` tasks (webhook sends) run at once, in a pool apart from `concurrency` (default 16). */
  outboundConcurrency?: number;
}

/** A task is claimed for this long and renewed while it runs, so a killed worker's task is free again soon. */
const CLAIM_MS = 30_000;
/** How often the whole collection is read: tasks of seconds no walk covered (a worker was down), and clean-up. */
const RECOVERY_MS = 30_000;
/** How far back each walk looks: tasks whose insert took a while still land in a walked second. */
const WALK_BACK_S = 15;
/** Finished tasks are kept this long (walks look 15 s back and need the slots unbroken), then deleted. */
const KEEP_DONE_MS = 2 * 60_000;
/** Work that only reports waits while a publishing task runs, waits or falls due within this long here… */
const PUBLISHING_AHEAD_MS = 1_000;

/**
 * The job store for numerous short jobs due at exact times (publishing a post, one status poll), beside
 * Agenda. On FerretDB every query but an `_id` lookup reads its whole collection, and Agenda's lock query
 * scans every queued job per job name and per lock: at a thousand due posts it stalls. So here a task's
 * `_id` is `<second it is due>#<slot>`, slots filled from 0 by insert-once: a worker finds the tasks of a
 * second by `_id` lookups (#0, #1, … until one is missing), never by a scan, fires each on a local timer
 * at its exact time, and claims it only when it has a free slot, by a lease insert (one winner across
 * workers). The claimer marks it done (kept a while as a tombstone, so the slot walk stays unbroken); a done
 * task needs no claim, so the claim is left to lapse rather than released (one write less per task). A
 * task whose worker died is free again once its 30 s claim lapses; a failed one is re-queued with the
 * definition's backoff. A full read every 15 s finds tasks of seconds nobody walked. Tasks due together
 * are claimed by priority (JobHandle.priority): a due post before anything else, and work that only
 * reports when nothing else waits, a few at a time; work that sends to other servers (webhooks) in a pool
 * of its own, so a receiver that stalls never takes a slot from either. At-least-once:
 * performs guard side effects with their own claims.
 */
export function createDueTaskLane(options: DueTaskLaneOptions) {
  const { db, logger } = options;
  const definitions = new Map(options.definitions.map((d) => [d.name, d]));
  const rankOf = (task: DueTaskDoc) => RANK[definitions.get(task.name)?.priority ?? 'normal'];
  const pools = createTaskPools({
    concurrency: options.concurrency,
    ...(options.reportingConcurrency ? { reporting: options.reportingConcurrency } : {}),
    ...(options.outboundConcurrency ? { outbound: options.outboundConcurrency } : {}),
  });
  /** Work that only reports, held while publishing is busy here (stop() lets it finish). */
  const heldReports = holdReports(() => !deps || stopped || !publishingBusy());
  /** A start of waiting tasks is pending: timers firing together all queue before any is claimed. */
  let startPending = false;
  const known = new Set<string>(); // tasks armed, waiting or running here
  const waiting: DueTaskDoc[] = [];
  /** Tasks armed (on a timer, or found already due by a look in progress), by id. */
  const armed = new Map<string, { task: DueTaskDoc; timer: NodeJS.Timeout | undefined }>();
  const running = new Map<string, Promise<void>>();
  /** Per second (epoch s) walked: the next slot to look at. Seconds far behind are forgotten. */
  const walked = new Map<number, number>();
  const insertTask = createTaskInserter(db.dueTasks);
  let deps: CoreDeps | undefined;
  let ticker: NodeJS.Timeout | undefined;
  /** The look for due tasks in flight, which stop() lets finish. */
  let looking: Promise<void> | null = null;
  let lastRecovery = 0;
  let stopped = false;

  function arm(task: DueTaskDoc): void {
    if (task.done || known.has(task._id)) return;
    known.add(task._id);
    // Already due (a backlog after a restart): the look releases it with all it found, by priority.
    if (task.runAt.getTime() <= Date.now()) {
      armed.set(task._id, { task, timer: undefined });
      return;
    }
    const fire = () => {
      // Node's timers run on a monotonic clock and may fire a millisecond before Date.now() reaches
      // runAt: wait out the rest, or the task would sit armed until some other timer fires.
      const early = task.runAt.getTime() - Date.now();
      if (early > 0) armed.set(task._id, { task, timer: setTimeout(fire, early) });
      else releaseDue();
    };
    armed.set(task._id, { task, timer: setTimeout(fire, Math.max(0, task.runAt.getTime() - Date.now())) });
  }

  /**
   * Moves every armed task now due to `waiting` (not only the one whose timer fired: timers of one
   * moment may fire a millisecond apart), then starts what the slots allow.
   */
  function releaseDue(): void {
    const now = Date.now();
    for (const [id, { task, timer }] of armed) {
      if (task.runAt.getTime() > now) continue;
      clearTimeout(timer);
      armed.delete(id);
      waiting.push(task);
    }
    scheduleStart();
  }

  /** Walks the slots of the seconds from a little ago to the horizon, arming what is not done. */
  async function walk(): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    const horizon = Math.floor((Date.now() + options.pollIntervalMs * 2) / 1000);
    for (const second of walked.keys()) if (second < now - 60) walked.delete(second);
    for (let second = now - WALK_BACK_S; second <= horizon; second += 1) {
      let slot = walked.get(second) ?? 0;
      for (;;) {
        const task = await db.dueTasks.findOne({ _id: taskId(second, slot) });
        if (!task) break;
        arm(task);
        slot += 1;
      }
      walked.set(second, slot);
    }
  }

  /** Reads everything: arms due tasks no walk found, deletes tombstones past their keeping time. */
  async function recover(): Promise<void> {
    const all = await db.dueTasks.find({}).toArray();
    const old = Date.now() - KEEP_DONE_MS;
    const stale = all.filter((task) => task.done && task.runAt.getTime() < old).map((task) => task._id);
    if (stale.length > 0) await db.dueTasks.deleteMany({ _id: { $in: stale } });
    // Later tasks wait for the walk of their second (a timer must not be set days ahead).
    const horizon = Date.now() + options.pollIntervalMs * 2;
    for (const task of all) if (task.runAt.getTime() <= horizon) arm(task);
  }

  /** Starts waiting tasks once this turn's timers have all fired, so the claim order sees every due task. */
  function scheduleStart(): void {
    if (startPending) return;
    startPending = true;
    setImmediate(() => {
      startPending = false;
      startWaiting();
    });
  }

  /** True while a publishing task runs or waits here, or one is armed to fall due within PUBLISHING_AHEAD_MS. */
  function publishingBusy(): boolean {
    if (pools.publishing() > 0 || waiting.some((task) => rankOf(task) === RANK.publishing)) return true;
    const soon = Date.now() + PUBLISHING_AHEAD_MS;
    for (const { task } of armed.values()) {
      if (rankOf(task) === RANK.publishing && task.runAt.getTime() <= soon) return true;
    }
    return false;
  }

  /**
   * Claims waiting tasks into free slots: publishing first, then by due time. A reporting task starts
   * only when nothing else waits, its pool has room and no publishing is busy (or it has waited
   * REPORTING_WAITS_AT_MOST_MS), so neither slots nor the database are taken from posts. Outbound tasks
   * (sorted last) wait for publishing alike, in a pool of their own.
   */
  function startWaiting(): void {
    waiting.sort((a, b) => rankOf(a) - rankOf(b) || a.runAt.getTime() - b.runAt.getTime());
    let busy: boolean | undefined; // asked once reporting tasks are reached: starting them cannot change it
    for (let i = 0; !stopped && i < waiting.length;) {
      const rank = rankOf(waiting[i]!);
      if (rank !== RANK.outbound && pools.sharedFull()) {
        const next = waiting.findIndex((task, at) => at > i && rankOf(task) === RANK.outbound);
        i = next < 0 ? waiting.length : next;
        continue;
      }
      if (pools.full(rank) || (rank >= RANK.reporting && (busy ??= publishingBusy()) && !heldLongEnough(waiting[i]!))) {
        i += 1;
        continue;
      }
      const [task] = waiting.splice(i, 1) as [DueTaskDoc];
      pools.take(rank);
      const run = runTask(task)
        .catch((error: unknown) =>
          logFailure(logger, 'error', error, { task: task._id, job: task.name }, 'task run failed'),
        )
        .finally(() => {
          pools.give(rank);
          running.delete(task._id);
          known.delete(task._id);
          startWaiting();
        });
      running.set(task._id, run);
    }
  }

  async function runTask(task: DueTaskDoc): Promise<void> {
    const definition = definitions.get(task.name);
    if (!definition || !deps) return;
    const lease = await claimLease(db, `task:${task._id}`, { ttlMs: CLAIM_MS });
    if (!lease) return;
    // Another worker may have finished it since our read: run only a task that is still open.
    // The claim is never released: a task ends done (its claim then guards nothing) and the write is saved.
    const current = await db.dueTasks.findOne({ _id: task._id });
    if (!current || current.done) return;
    const renewal = setInterval(() => void renewLease(db, lease, CLAIM_MS).catch(() => undefined), CLAIM_MS / 3);
    renewal.unref();
    try {
      await definition.perform(definition.data.parse(current.data), {
        deps,
        jobId: current._id,
        attempt: current.failCount + 1,
        touch: async () => {
          await renewLease(db, lease, CLAIM_MS);
        },
      });
      deps.metrics.jobRun(task.name, 'completed');
    } catch (error) {
      deps.metrics.jobRun(task.name, 'failed');
      await retryLater(definition, current, error);
    } finally {
      clearInterval(renewal);
      await db.dueTasks.updateOne({ _id: current._id }, { $set: { done: true } });
    }
  }

  async function retryLater(definition: AnyJobDefinition, task: DueTaskDoc, error: unknown): Promise<void> {
    const failCount = task.failCount + 1;
    const reason = error instanceof Error ? error.message : String(error);
    if (failCount > definition.retry.maxRetries) {
      logger.error({ task: task._id, job: task.name, reason, failCount }, 'task failed for good');
      return;
    }
    const delay = Math.min(definition.retry.delayMs * 2 ** (failCount - 1), definition.retry.maxDelayMs);
    const fields = { task: task._id, job: task.name, failCount, delayMs: delay };
    logFailure(logger, 'warn', error, fields, 'task failed, retrying', { stack: false });
    await insertTask(task.name, task.data, new Date(Date.now() + delay), failCount);
  }

  async function tick(): Promise<void> {
    await walk();
    releaseDue(); // what it found due, by priority; and reports held for publishing once it is over
    if (Date.now() - lastRecovery >= RECOVERY_MS) {
      lastRecovery = Date.now();
      await recover();
      releaseDue();
    }
  }

  return {
    /** Stores a task due at `runAt`; any worker runs it then. */
    enqueue<Data>(job: JobHandle<Data>, data: Data, runAt: Date): Promise<string> {
      return insertTask(job.name, job.data.parse(data), runAt, 0);
    },
    /**
     * Runs `work`, which only reports (relaying events), once no publishing task runs, waits or falls due
     * within PUBLISHING_AHEAD_MS here, or after REPORTING_WAITS_AT_MOST_MS; at once in a process that does
     * not run the lane. stop() lets held work finish before it returns.
     */
    afterPublishing<T>(work: () => Promise<T>): Promise<T> {
      return heldReports.hold(work);
    },
    /** Starts looking for due tasks and running them with `jobDeps`. */
    start(jobDeps: CoreDeps): void {
      deps = jobDeps;
      const loop = () => {
        if (stopped) return;
        looking = tick()
          .catch((error: unknown) => logFailure(logger, 'warn', error, {}, 'looking for due tasks failed'))
          .finally(() => {
            looking = null;
            if (!stopped) ticker = setTimeout(loop, options.pollIntervalMs);
          });
      };
      loop();
    },
    /** Stops taking tasks and waits up to `drainMs` for the running ones; unfinished ones run again elsewhere. */
    async stop(drainMs: number): Promise<{ unfinished: number }> {
      stopped = true;
      clearTimeout(ticker);
      for (const { timer } of armed.values()) clearTimeout(timer);
      armed.clear();
      waiting.length = 0;
      const timeout = new Promise((resolve) => setTimeout(resolve, drainMs).unref());
      // A look in flight finishes first (the database closes after stop(), mid-query it would fail),
      // then the tasks running, including any that look started.
      await Promise.race([looking, timeout]);
      await Promise.race([Promise.allSettled([...running.values()]), timeout]);
      // Held reports run now (nothing is published any more), before the database closes.
      await Promise.race([heldReports.settled(), timeout]);
      return { unfinished: running.size };
    },
  };
}

/** The lane's interface, as the job runner holds it. */
export type DueTaskLane = ReturnType<typeof createDueTaskLane>;
