import type { JobHandle } from './job-handle.js';

/** Puts a job on the queue, now or at `runAt`; every role can enqueue, only workers process. */
export interface JobQueue {
  enqueue<Data>(job: JobHandle<Data>, data: Data, options?: { runAt?: Date }): Promise<string>;
}
