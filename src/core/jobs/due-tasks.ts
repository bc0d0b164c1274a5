import { randomUUID } from 'node:crypto';
import type { Collections } from '../db/collections.js';
import type { DueTaskDoc } from '../db/documents.js';
import { claimLease, releaseLease, renewLease } from '../db/leases.js';
import type { CoreDeps } from '../context.js';
import type { Logger } from '../../logger.js';
import type { AnyJobDefinition, JobDefinition } from './define-job.js';

/** Tuning of the lane; defaults suit production, tests shorten them. */
export interface DueTaskLaneOptions {
  db: Pick<Collections, 'dueTasks' | 'leases' | 'positionHints'>;
  logger: Logger;
  definitions: readonly AnyJobDefinition[];
  /** How often a worker looks for tasks due soon. */
  pollIntervalMs: number;
  /** Tasks this process runs at once. */
  concurrency: number;
}

/** A task is claimed for this long and renewed while it runs, so a killed worker's task is free again soon. */
const CLAIM_MS = 30_000;

/**
 * The job store for numerous short jobs (publishing a due post, one status poll), beside Agenda.
 * On FerretDB every query but an `_id` lookup scans its collection, and Agenda sends one lock query
 * per job name and per job it locks, each scanning every queued job: with a thousand posts due in
 * one minute it stalls. Here a task is one document that lives only until it is done, each worker
 * reads the tasks due within the next poll with one query, fires each at its exact time, and claims
 * it only when it has a free slot, by a lease insert (one winner across workers). A task whose
 * worker died is taken again once its claim lapses (30 s); a failed one is retried with the
 * definition's backoff. Jobs are at-least-once; their performs guard side effects with their own claims.
 */
export function createDueTaskLane(options: DueTaskLaneOptions) {
  const { db, logger } = options;
  const definitions = new Map(options.definitions.map((d) => [d.name, d]));
  const armed = new Map<string, NodeJS.Timeout>();
  const waiting: DueTaskDoc[] = [];
  const waitingIds = new Set<string>();
  const running = new Map<string, Promise<void>>();
  let deps: CoreDeps | undefined;
  let ticker: NodeJS.Timeout | undefined;
  let stopped = false;

  async function look(): Promise<void> {
    const horizon = new Date(Date.now() + options.pollIntervalMs * 2);
    const due = await db.dueTasks.find({ runAt: { $lte: horizon } }).toArray();
    for (const task of due) {
      if (armed.has(task._id) || running.has(task._id) || waitingIds.has(task._id)) continue;
      const timer = setTimeout(
        () => {
          armed.delete(task._id);
          waiting.push(task);
          waitingIds.add(task._id);
          startWaiting();
        },
        Math.max(0, task.runAt.getTime() - Date.now()),
      );
      armed.set(task._id, timer);
    }
  }

  function startWaiting(): void {
    waiting.sort((a, b) => a.runAt.getTime() - b.runAt.getTime());
    while (!stopped && running.size < options.concurrency && waiting.length > 0) {
      const task = waiting.shift()!;
      waitingIds.delete(task._id);
      const run = runTask(task)
        .catch((error: unknown) => logger.error({ err: error, task: task._id, job: task.name }, 'task run failed'))
        .finally(() => {
          running.delete(task._id);
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
    // Another worker may have finished or re-armed it since our read: run only the task as it is now.
    const current = await db.dueTasks.findOne({ _id: task._id });
    if (!current || current.runAt.getTime() !== task.runAt.getTime()) return releaseLease(db, lease);
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
      await db.dueTasks.deleteOne({ _id: current._id });
    } catch (error) {
      await retryOrDrop(definition, current, error);
    } finally {
      clearInterval(renewal);
      await releaseLease(db, lease);
    }
  }

  async function retryOrDrop(definition: AnyJobDefinition, task: DueTaskDoc, error: unknown): Promise<void> {
    const failCount = task.failCount + 1;
    const reason = error instanceof Error ? error.message : String(error);
    if (failCount > definition.retry.maxRetries) {
      logger.error({ task: task._id, job: task.name, reason, failCount }, 'task failed for good');
      await db.dueTasks.deleteOne({ _id: task._id });
      return;
    }
    const delay = Math.min(definition.retry.delayMs * 2 ** (failCount - 1), definition.retry.maxDelayMs);
    logger.warn({ task: task._id, job: task.name, reason, failCount, delayMs: delay }, 'task failed, retrying');
    await db.dueTasks.updateOne({ _id: task._id }, { $set: { runAt: new Date(Date.now() + delay), failCount } });
  }

  return {
    /** Stores a task due at `runAt`; any worker runs it then. */
    async enqueue<Data>(definition: JobDefinition<Data>, data: Data, runAt: Date): Promise<string> {
      const task: DueTaskDoc = {
        _id: randomUUID(),
        name: definition.name,
        data: definition.data.parse(data),
        runAt,
        failCount: 0,
        createdAt: new Date(),
      };
      await db.dueTasks.insertOne(task);
      return task._id;
    },
    /** Starts looking for due tasks and running them with `jobDeps`. */
    start(jobDeps: CoreDeps): void {
      deps = jobDeps;
      const tick = () => {
        if (stopped) return;
        look()
          .catch((error: unknown) => logger.warn({ err: error }, 'looking for due tasks failed'))
          .finally(() => {
            if (!stopped) ticker = setTimeout(tick, options.pollIntervalMs);
          });
      };
      tick();
    },
    /** Stops taking tasks and waits up to `drainMs` for the running ones; unfinished ones run again elsewhere. */
    async stop(drainMs: number): Promise<{ unfinished: number }> {
      stopped = true;
      clearTimeout(ticker);
      for (const timer of armed.values()) clearTimeout(timer);
      armed.clear();
      waiting.length = 0;
      waitingIds.clear();
      const all = Promise.allSettled([...running.values()]);
      const timeout = new Promise((resolve) => setTimeout(resolve, drainMs).unref());
      await Promise.race([all, timeout]);
      return { unfinished: running.size };
    },
  };
}

/** The lane's interface, as the job runner holds it. */
export type DueTaskLane = ReturnType<typeof createDueTaskLane>;
