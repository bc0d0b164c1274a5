import { definePeriodicJob } from '../jobs/periodic-job.js';
import { purgeExpiredUploadLinks } from './upload-links.js';

/** The periodic clean-up of expired upload links; the scheduler decides how often it runs. */
export const purgeUploadLinksJob = definePeriodicJob('media.purge-upload-links', async (deps) => {
  const purged = await purgeExpiredUploadLinks(deps);
  if (purged > 0) deps.logger.info({ purged }, 'purged expired upload links');
});
