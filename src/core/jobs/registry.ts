import { workerProbeJob } from '../ops/worker-probe.js';
import type { AnyJobDefinition } from './define-job.js';

/** Every job the worker knows. A capability adds its definitions here. */
export const JOB_DEFINITIONS: readonly AnyJobDefinition[] = [workerProbeJob];
