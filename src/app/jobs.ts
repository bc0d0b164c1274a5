import { CARD_ACTION_RECOVERY_EVERY_MS, recoverCardActionsJob } from '../core/chat/action-recovery.js';
import { chatApprovalsConsumer } from '../core/chat/consumer.js';
import { chatLoginJob } from '../core/chat/jobs.js';
import { purgeChatRecordsJob } from '../core/chat/purge-job.js';
import { eventDeliveryJob } from '../core/events/deliver.js';
import { purgeOldEventsJob, RELAY_SWEEP_EVERY_MS, relaySweepJob } from '../core/events/relay-sweep.js';
import { purgeExpiredDeviceCodesJob } from '../core/device/purge-job.js';
import { purgeExpiredIdempotencyKeysJob } from '../core/idempotency/purge-job.js';
import { purgeExpiredIdentityRecordsJob } from '../core/identity/purge-job.js';
import { sweepPartialsJob } from '../core/media/sweep-partials-job.js';
import { sweepUnrecordedJob } from '../core/media/sweep-unrecorded.js';
import { purgeUploadLinksJob } from '../core/media/upload-links-purge-job.js';
import { purgeOAuthCodesJob } from '../core/oauth/purge-job.js';
import { workerProbeJob } from '../core/ops/worker-probe.js';
import { purgeOAuthStatesJob } from '../core/platforms/oauth-states-purge-job.js';
import { TOKEN_UPKEEP_EVERY_MS, tiktokTokenUpkeepJob } from '../core/providers/tiktok/index.js';
import { INSTAGRAM_UPKEEP_EVERY_MS, instagramTokenUpkeepJob } from '../core/providers/instagram/index.js';
import { pollStatusJob, publishPostJob, sweepPostsJob } from '../core/publishing/jobs.js';
import { purgeExpiredRecordsJob } from '../core/retention/purge.js';
import { SWEEP_EVERY_MS } from '../core/publishing/sweep.js';
import type { AnyJobDefinition, RecurringJob } from '../core/jobs/define-job.js';
import { defineHousekeepingJob, HOUSEKEEPING_EVERY_MS } from '../core/jobs/housekeeping.js';
import { collectInsightsJob, PLAN_COLLECTION_EVERY_MS, planCollectionJob } from '../core/insights/collect-job.js';
import { insightsConsumer } from '../core/insights/published-consumer.js';
import { generateSlideshowDefinition } from '../core/slides/generation/job.js';
import { webhooksConsumer } from '../core/webhooks/consumer.js';
import { sendWebhookJob } from '../core/webhooks/send-job.js';

/**
 * The periodic clean-ups and sweeps, run by the one housekeeping job when their period has passed
 * (src/core/jobs/housekeeping.ts): under names of their own Agenda would poll for each one.
 */
export const PERIODIC_JOBS: readonly RecurringJob[] = [
  { definition: purgeExpiredDeviceCodesJob, everyMs: 15 * 60_000 },
  { definition: purgeExpiredIdentityRecordsJob, everyMs: 60 * 60_000 },
  { definition: tiktokTokenUpkeepJob, everyMs: TOKEN_UPKEEP_EVERY_MS },
  { definition: instagramTokenUpkeepJob, everyMs: INSTAGRAM_UPKEEP_EVERY_MS },
  { definition: purgeOAuthStatesJob, everyMs: 60 * 60_000 },
  { definition: purgeExpiredIdempotencyKeysJob, everyMs: 15 * 60_000 },
  { definition: purgeUploadLinksJob, everyMs: 60 * 60_000 },
  { definition: sweepPartialsJob, everyMs: 60 * 60_000 },
  { definition: sweepUnrecordedJob, everyMs: 60 * 60_000 },
  { definition: purgeOAuthCodesJob, everyMs: 60 * 60_000 },
  { definition: relaySweepJob, everyMs: RELAY_SWEEP_EVERY_MS },
  { definition: purgeOldEventsJob, everyMs: 60 * 60_000 },
  { definition: purgeChatRecordsJob, everyMs: 60 * 60_000 },
  { definition: recoverCardActionsJob, everyMs: CARD_ACTION_RECOVERY_EVERY_MS },
  { definition: purgeExpiredRecordsJob, everyMs: 60 * 60_000 },
  { definition: planCollectionJob, everyMs: PLAN_COLLECTION_EVERY_MS },
];

const housekeepingJob = defineHousekeepingJob(PERIODIC_JOBS);

/** Every job a worker knows, part of composing the app: a capability adds its definitions here. */
export const JOB_DEFINITIONS: readonly AnyJobDefinition[] = [
  workerProbeJob,
  publishPostJob,
  pollStatusJob,
  sweepPostsJob,
  generateSlideshowDefinition,
  eventDeliveryJob([chatApprovalsConsumer, insightsConsumer, webhooksConsumer]),
  collectInsightsJob,
  sendWebhookJob,
  chatLoginJob,
  housekeepingJob,
];

/**
 * What a worker schedules when it starts (one schedule per name, shared by workers): the housekeeping
 * job, and the publishing sweeper on its own, so no clean-up ever holds up the recovery of a post.
 */
export const RECURRING_JOBS: readonly RecurringJob[] = [
  { definition: housekeepingJob, everyMs: HOUSEKEEPING_EVERY_MS },
  { definition: sweepPostsJob, everyMs: SWEEP_EVERY_MS },
];
