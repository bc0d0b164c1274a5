import { z } from 'zod';
import { defineJobHandle } from '../../jobs/job-handle.js';

/** Runs (or resumes) one slideshow generation job. */
export const generateSlideshowJob = defineJobHandle({
  name: 'generate-slideshow',
  data: z.object({ jobId: z.uuid() }),
});
