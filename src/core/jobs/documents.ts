// Stored documents of the due-task lane. Ids are UUID strings kept in `_id`.

/**
 * A job of the due-task lane (src/core/jobs/due-tasks.ts), `_id` = `<epoch second due>#<slot>` so a
 * second's tasks are found by `_id` lookups; claimed through a lease, marked done by its claimer.
 */
export interface DueTaskDoc {
  _id: string;
  /** The job definition's name. */
  name: string;
  data: unknown;
  runAt: Date;
  failCount: number;
  /** Ran (or given up on); kept a short while so the slot walk of its second stays unbroken. */
  done: boolean;
  createdAt: Date;
}

/** When a periodic job (src/core/jobs/housekeeping.ts) last ran, `_id` = its name. */
export interface PeriodicRunDoc {
  _id: string;
  lastRunAt: Date;
}
