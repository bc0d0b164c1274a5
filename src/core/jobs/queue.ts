import type { JobDefinition } from './define-job.js';

/** Puts a job on the queue, now or at `runAt`; every role can enqueue, only workers process. */
export interface JobQueue {
  enqueue<Data>(definition: JobDefinition<Data>, data: Data, options?: { runAt?: Date }): Promise<string>;
}
