// Stored documents of operator tools. Ids are UUID strings kept in `_id`.

/** Written by the worker-probe job so an operator can see that a worker processes jobs. */
export interface WorkerProbeDoc {
  _id: string;
  holdMs: number;
  requestedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  workerPid: number | null;
}
