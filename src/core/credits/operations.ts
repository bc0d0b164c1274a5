import { z } from 'zod';
import { defineOperation } from '../operations/operation.js';
import { readUsage, UsageSchema } from './usage.js';

export const getUsageOperation = defineOperation({
  name: 'get_usage',
  title: 'Get usage',
  summary:
    "This month's caption credits, image credits and post cap of the caller's account: used, allowance, reset time",
  input: z.object({}),
  output: UsageSchema,
  result: 'the usage of each monthly pool',
  errors: [],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope) => readUsage(deps, scope),
});

/** The credit operations. */
export const creditOperations = [getUsageOperation] as const;
