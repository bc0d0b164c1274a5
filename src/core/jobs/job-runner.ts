import { Agenda, backoffStrategies, type Job } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import { ObjectId, type Db } from 'mongodb';
import type { CoreDeps } from '../context.js';
import { collectionsOf } from '../db/collections.js';
import type { AnyJobDefinition, RecurringJob } from './define-job.js';
import { createDueTaskLane } from './due-tasks.js';
import type { JobQueue } from './queue.js';
import { logFailure } from '../db/unreachable.js';

export interface JobRunnerOptions {
  db: Db;
  /** What jobs get, except the queue itself, which the runner adds (jobs enqueue follow-up jobs). */
  deps: Omit<CoreDeps, 'jobs'>;
  definitions: readonly AnyJobDefinition[];
  /** Scheduled when processing starts. */
  recurring?: readonly RecurringJob[];
  pollIntervalMs: number;
  /** Agenda's jobs run at once. */
  concurrency: number;
  /** Due-task lane tasks (publishing) run at once; defaults to `concurrency`. */
  publishConcurrency?: number;
}

/** Enqueues jobs (every role) and processes them (the worker role), on Agenda's MongoDB backend. */
export interface JobRunner extends JobQueue {
  /** Starts taking jobs from the queue; only the worker role calls this. */
  startProcessing(): Promise<void>;
  /** Stops intake, waits up to `drainMs` for running jobs, then releases what still runs. */
  stop(drainMs: number): Promise<{ unfinished: number }>;
}

/** Builds the job runner on the app's own database handle. */
export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { logger } = options.deps;
  const agenda = new Agenda({
    backend: new MongoBackend({ mongo: options.db, collection: 'agendaJobs' }),
    processEvery: options.pollIntervalMs,
    maxConcurrency: options.concurrency,
    // A finished one-off job is history nobody reads, and every poll scans the collection on
    // FerretDB, so publishing's many short jobs would slow the queue down; failed ones stay.
    removeOnComplete: true,
  });
  // Agenda connects (and creates its indexes) in the background from here on; closing the
  // database before that settles would interrupt it, so stop() waits for `settled`.
  const settled = agenda.ready.catch((error: unknown) => logger.error({ err: error }, 'job queue did not start'));
  agenda.on('error', (error: Error) => logFailure(logger, 'error', error, {}, 'job queue error'));
  agenda.on('fail', (error: Error, job: Job) =>
    logFailure(logger, 'warn', error, { job: job.attrs.name, jobId: String(job.attrs._id) }, 'job failed', {
      stack: false,
    }),
  );

  // Ids of the jobs this process is running, so a shutdown can hand unfinished ones back.
  const running = new Set<string>();
  const lane = createDueTaskLane({
    db: collectionsOf(options.db),
    logger,
    definitions: options.definitions.filter((d) => d.queue === 'due-tasks'),
    // Its tasks fire at their exact time once seen; looking often keeps `now` tasks prompt, and costs one small scan.
    pollIntervalMs: Math.min(options.pollIntervalMs, 500),
    concurrency: options.publishConcurrency ?? options.concurrency,
  });
  for (const definition of options.definitions.filter((d) => d.queue === 'agenda')) {
    agenda.define(
      definition.name,
      async (job: Job<unknown>) => {
        const jobId = String(job.attrs._id);
        running.add(jobId);
        try {
          const data: unknown = definition.data.parse(job.attrs.data);
          await definition.perform(data, {
            deps: jobDeps,
            jobId,
            attempt: (job.attrs.failCount ?? 0) + 1,
            touch: async (progress) => {
              await job.touch(progress);
            },
          });
          jobDeps.metrics.jobRun(definition.name, 'completed');
        } catch (error) {
          jobDeps.metrics.jobRun(definition.name, 'failed');
          throw error;
        } finally {
          running.delete(jobId);
        }
      },
      {
        concurrency: definition.concurrency,
        lockLifetime: definition.lockLifetimeMs,
        backoff: backoffStrategies.exponential({
          delay: definition.retry.delayMs,
          maxDelay: definition.retry.maxDelayMs,
          maxRetries: definition.retry.maxRetries,
        }),
      },
    );
  }

  let processing = false;
  let stopped = false;
  const runner: JobRunner = {
    async enqueue(definition, data, enqueueOptions = {}) {
      if (definition.queue === 'due-tasks') return lane.enqueue(definition, data, enqueueOptions.runAt ?? new Date());
      const valid = definition.data.parse(data);
      const job = enqueueOptions.runAt
        ? await agenda.schedule(enqueueOptions.runAt, definition.name, valid)
        : await agenda.now(definition.name, valid);
      return String(job.attrs._id);
    },
    afterPublishing: (work) => lane.afterPublishing(work),
    async startProcessing() {
      processing = true;
      lane.start(jobDeps);
      await agenda.start();
      for (const { definition, everyMs } of options.recurring ?? []) {
        await agenda.every(everyMs, definition.name, {});
      }
    },
    async stop(drainMs) {
      if (stopped || !processing) {
        stopped = true;
        await lane.stop(drainMs); // reports handed to it still write before the database closes
        await settled;
        return { unfinished: 0 };
      }
      stopped = true;
      const [lanes] = await Promise.all([lane.stop(drainMs), agenda.drain(drainMs)]);
      const unfinished = [...running];
      // Agenda clears a one-off job's nextRunAt when it starts, so merely unlocking would strand it:
      // make each unfinished job due again, for the next worker (or this one after a restart).
      if (unfinished.length > 0) {
        await options.db
          .collection('agendaJobs')
          .updateMany(
            { _id: { $in: unfinished.map((id) => new ObjectId(id)) } },
            { $set: { nextRunAt: new Date() }, $unset: { lockedAt: true } },
          );
      }
      return { unfinished: unfinished.length + lanes.unfinished };
    },
  };
  // Jobs get the same deps as use cases, this queue included (they enqueue follow-ups); declared
  // after the runner, which is fine: no job runs before startProcessing.
  const jobDeps: CoreDeps = { ...options.deps, jobs: runner };
  return runner;
}
