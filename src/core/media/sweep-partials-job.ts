import { definePeriodicJob } from '../jobs/periodic-job.js';

/** A partial upload untouched this long belongs to a process that died mid-write. */
export const PARTIAL_IDLE_MS = 60 * 60_000;

/** The periodic sweep of the media store's abandoned partial writes (`.tmp/*.part` of the local store). */
export const sweepPartialsJob = definePeriodicJob('media.sweep-partials', async (deps) => {
  const swept = (await deps.media.store.sweepPartials?.(PARTIAL_IDLE_MS)) ?? 0;
  if (swept > 0) deps.logger.info({ swept }, 'deleted abandoned partial uploads');
});
