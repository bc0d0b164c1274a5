import type { CoreDeps } from '../context.js';
import type { JobHandle } from './job-handle.js';

/** How a failed job is retried: up to `maxRetries` more times, exponentially from `delayMs`. */
export interface RetryPolicy {
  maxRetries: number;
  delayMs: number;
  maxDelayMs: number;
}

/** What a job's `perform` gets besides its data. */
export interface JobContext {
  deps: CoreDeps;
  jobId: string;
  attempt: number;
  /** Reports progress (0–100) and extends the job's lock, for long work. */
  touch(progress?: number): Promise<void>;
}

/** A typed job: its handle (name, data schema, store), its handler and its retry policy. */
export interface JobDefinition<Data> extends JobHandle<Data> {
  readonly retry: RetryPolicy;
  /** How long a running job's lock lasts before another worker may assume it crashed. */
  readonly lockLifetimeMs: number;
  readonly concurrency: number;
  perform(data: Data, context: JobContext): Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ maxRetries: 3, delayMs: 5_000, maxDelayMs: 300_000 });

/** Declares a job next to the code it serves; defaults fill in what is not given. */
export function defineJob<Data>(
  definition: Pick<JobDefinition<Data>, 'name' | 'data' | 'perform'> & Partial<JobDefinition<Data>>,
): JobDefinition<Data> {
  return Object.freeze({
    retry: DEFAULT_RETRY,
    lockLifetimeMs: 10 * 60_000,
    concurrency: 5,
    queue: 'agenda' as const,
    priority: 'normal' as const,
    ...definition,
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds definitions of any data type
export type AnyJobDefinition = JobDefinition<any>;

/** A job the worker runs on a fixed period, with no data. */
export interface RecurringJob {
  definition: AnyJobDefinition;
  everyMs: number;
}
