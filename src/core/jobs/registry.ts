import { purgeExpiredDeviceCodesJob } from '../device/purge-job.js';
import { purgeExpiredIdempotencyKeysJob } from '../idempotency/purge-job.js';
import { purgeExpiredIdentityRecordsJob } from '../identity/purge-job.js';
import { workerProbeJob } from '../ops/worker-probe.js';
import { purgeOAuthStatesJob } from '../platforms/oauth-states-purge-job.js';
import { TOKEN_UPKEEP_EVERY_MS, tiktokTokenUpkeepJob } from '../platforms/tiktok-upkeep-job.js';
import { pollStatusJob, publishPostJob, sweepPostsJob } from '../publishing/jobs.js';
import { SWEEP_EVERY_MS } from '../publishing/sweep.js';
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
  tiktokTokenUpkeepJob,
  purgeOAuthStatesJob,
  purgeExpiredIdempotencyKeysJob,
  publishPostJob,
  pollStatusJob,
  sweepPostsJob,
];

/** The periodic clean-ups, scheduled when a worker starts (one schedule per name, shared by workers). */
export const RECURRING_JOBS: readonly RecurringJob[] = [
  { definition: purgeExpiredDeviceCodesJob, everyMs: 15 * 60_000 },
  { definition: purgeExpiredIdentityRecordsJob, everyMs: 60 * 60_000 },
  { definition: tiktokTokenUpkeepJob, everyMs: TOKEN_UPKEEP_EVERY_MS },
  { definition: purgeOAuthStatesJob, everyMs: 60 * 60_000 },
  { definition: purgeExpiredIdempotencyKeysJob, everyMs: 15 * 60_000 },
  { definition: sweepPostsJob, everyMs: SWEEP_EVERY_MS },
];
