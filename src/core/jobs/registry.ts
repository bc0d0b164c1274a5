import { purgeExpiredDeviceCodesJob } from '../device/purge-job.js';
import { purgeExpiredIdentityRecordsJob } from '../identity/purge-job.js';
import { workerProbeJob } from '../ops/worker-probe.js';
import type { AnyJobDefinition } from './define-job.js';

/** Jobs the worker runs on a fixed period, with no data. */
export interface RecurringJob {
  definition: AnyJobDefinition;
  everyMs: number;
}

/** Every job the worker knows. A capability adds its definitions here. */
export const JOB_DEFINITIONS: readonly AnyJobDefinition[] = [
  workerProbeJob,
  purgeExpiredDeviceCodesJob,
  purgeExpiredIdentityRecordsJob,
];

/** The periodic clean-ups, scheduled when a worker starts (one schedule per name, shared by workers). */
export const RECURRING_JOBS: readonly RecurringJob[] = [
  { definition: purgeExpiredDeviceCodesJob, everyMs: 15 * 60_000 },
  { definition: purgeExpiredIdentityRecordsJob, everyMs: 60 * 60_000 },
];
