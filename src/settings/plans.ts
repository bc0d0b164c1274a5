import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_PLANS, PlanTableSchema, type PlanTable } from '../core/plans.js';

/** The plan settings' environment variables (part of the one schema in config.ts). */
export const PlanEnvSchema = z.object({
  POSTDECK_PLANS_FILE: z.string().min(1).optional(),
  DEFAULT_PLAN: z
    .string()
    .regex(/^[a-z0-9_-]{1,40}$/, 'must be a plan name')
    .optional(),
});

/** The plan table and the plan new accounts start on, or what is wrong with them. */
export function planSettings(
  vars: z.infer<typeof PlanEnvSchema>,
  cwd: string,
): { plans: PlanTable; defaultPlan: string } | { problems: string[] } {
  const file = vars.POSTDECK_PLANS_FILE && path.resolve(cwd, vars.POSTDECK_PLANS_FILE);
  let plans: PlanTable = DEFAULT_PLANS;
  if (file) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      return { problems: [`POSTDECK_PLANS_FILE: cannot read ${file} as JSON (${(error as Error).message})`] };
    }
    const parsed = PlanTableSchema.safeParse(raw);
    if (!parsed.success) {
      return {
        problems: parsed.error.issues.map(
          (issue) => `POSTDECK_PLANS_FILE ${issue.path.join('.') || '(root)'}: ${issue.message}`,
        ),
      };
    }
    plans = parsed.data;
  }
  // Unset: `unlimited` when the table has it (the shipped one does), else `free`.
  const defaultPlan = vars.DEFAULT_PLAN ?? ('unlimited' in plans ? 'unlimited' : 'free');
  if (!(defaultPlan in plans)) {
    return {
      problems: [`DEFAULT_PLAN: "${defaultPlan}" is not in the plan table (${Object.keys(plans).join(', ')})`],
    };
  }
  return { plans, defaultPlan };
}
