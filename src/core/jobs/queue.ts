import type { JobHandle } from './job-handle.js';

/** Puts a job on the queue, now or at `runAt`; every role can enqueue, only workers process. */
export interface JobQueue {
  enqueue<Data>(job: JobHandle<Data>, data: Data, options?: { runAt?: Date }): Promise<string>;
  /**
   * Runs `work` that only reports (relaying events) once this process's publishing gives way: no
   * publishing task running, waiting or due within a second here, or after a minute at most. At once in
   * a process that does not publish. Callers on a publishing path do not wait for it.
   */
  afterPublishing<T>(work: () => Promise<T>): Promise<T>;
}
