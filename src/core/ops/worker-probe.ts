import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { CoreDeps } from '../context.js';
import type { WorkerProbeDoc } from './documents.js';
import { defineJob } from '../jobs/define-job.js';
import type { JobQueue } from '../jobs/queue.js';

/** The longest a probe may hold a worker slot, so a typo cannot park a worker for hours. */
export const MAX_PROBE_HOLD_MS = 60_000;

/**
 * A job an operator sends through the queue (`postdeck admin probe-worker`) to see that a
 * worker picks jobs up; it records when it started and finished, and by which process.
 * `holdMs` keeps it running for a while, which is how shutdown draining is checked.
 */
export const workerProbeJob = defineJob({
  name: 'ops.worker-probe',
  data: z.object({ probeId: z.uuid(), holdMs: z.number().int().min(0).max(MAX_PROBE_HOLD_MS) }),
  retry: { maxRetries: 0, delayMs: 1_000, maxDelayMs: 1_000 },
  async perform({ probeId, holdMs }, { deps }) {
    await deps.db.workerProbes.updateOne({ _id: probeId }, { $set: { startedAt: deps.now(), workerPid: process.pid } });
    await sleep(holdMs);
    await deps.db.workerProbes.updateOne({ _id: probeId }, { $set: { finishedAt: deps.now() } });
  },
});

/** Records a probe and enqueues it; poll `readWorkerProbe` for the outcome. */
export async function sendWorkerProbe(deps: CoreDeps, jobs: JobQueue, holdMs: number): Promise<WorkerProbeDoc> {
  const probe: WorkerProbeDoc = {
    _id: randomUUID(),
    holdMs,
    requestedAt: deps.now(),
    startedAt: null,
    finishedAt: null,
    workerPid: null,
  };
  await deps.db.workerProbes.insertOne(probe);
  await jobs.enqueue(workerProbeJob, { probeId: probe._id, holdMs });
  return probe;
}

/** The probe's current record, or null for an unknown id. */
export async function readWorkerProbe(deps: CoreDeps, probeId: string): Promise<WorkerProbeDoc | null> {
  return deps.db.workerProbes.findOne({ _id: probeId });
}
