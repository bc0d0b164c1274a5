import { z } from 'zod';
import { defineJob } from '../jobs/define-job.js';
import { purgeOAuthStates } from './oauth-states.js';

/** The periodic clean-up of OAuth states that expired (used or not). */
export const purgeOAuthStatesJob = defineJob({
  name: 'platforms.purge-oauth-states',
  data: z.object({}),
  retry: { maxRetries: 1, delayMs: 60_000, maxDelayMs: 60_000 },
  concurrency: 1,
  async perform(_data, { deps }) {
    const purged = await purgeOAuthStates(deps, deps.now());
    if (purged > 0) deps.logger.info({ purged }, 'purged expired oauth states');
  },
});
