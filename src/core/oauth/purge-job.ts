import { definePeriodicJob } from '../jobs/periodic-job.js';
import { purgeExpiredOAuthCodes } from './token.js';

/** The periodic clean-up of expired authorization codes; the scheduler decides how often it runs. */
export const purgeOAuthCodesJob = definePeriodicJob('oauth.purge-codes', async (deps) => {
  const purged = await purgeExpiredOAuthCodes(deps);
  if (purged > 0) deps.logger.info({ purged }, 'purged expired OAuth authorization codes');
});
