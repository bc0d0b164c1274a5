import { definePeriodicJob } from '../jobs/periodic-job.js';
import { purgeOAuthStates } from './oauth-states.js';

/** The periodic clean-up of OAuth states that expired (used or not). */
export const purgeOAuthStatesJob = definePeriodicJob('platforms.purge-oauth-states', async (deps) => {
  const purged = await purgeOAuthStates(deps, deps.now());
  if (purged > 0) deps.logger.info({ purged }, 'purged expired oauth states');
});
