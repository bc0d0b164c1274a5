import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { CoreDeps, Scope } from '../core/context.js';
import { invokeOperation } from '../core/operations/invoke.js';
import { getGenerationJobOperation, generateSlideshowOperation } from '../core/slides/operations.js';
import { GenerateAcceptedSchema, GenerationJobSchema, type GenerationJob } from '../core/slides/generation/schema.js';

/** The longest generate_slideshow waits for its job before answering with where it stands. */
export const MAX_WAIT_MS = 10 * 60_000;
const POLL_MS = 500;

/** What a tool may use of the request it answers: cancellation, and progress when the client asked for it. */
export interface ToolContext {
  signal: AbortSignal;
  /** Present when the client sent a progress token. */
  progress?: (progress: number, total: number, message: string) => Promise<void>;
}

/** generate_slideshow's arguments over MCP: the operation's input, and whether to wait for the job. */
export const GenerateArgumentsSchema = generateSlideshowOperation.input.extend({
  wait: z
    .boolean()
    .optional()
    .describe(
      'wait for the job to finish (at most 10 minutes) and return it; the default when you asked for progress, which then arrives as the job runs',
    ),
});

/** generate_slideshow's result over MCP: the operation's, plus the job as it stood when the wait ended. */
export const GenerateResultSchema = GenerateAcceptedSchema.extend({
  status: GenerationJobSchema.shape.status.describe(
    "WAITING when not waited for; after a wait, the job's own status (the same as job.status)",
  ),
  job: GenerationJobSchema.optional().describe('the job when the wait ended (DONE or FAILED unless cut short)'),
});

/**
 * Queues the slideshow, then, when asked to wait, follows the job: a progress notification each time
 * it moves (images completed of total, the stage as the message) until it is DONE or FAILED, the
 * wait's bound passes or the caller cancels. Cancelling ends the wait only; the job goes on.
 */
export async function generateAndFollow(
  deps: CoreDeps,
  scope: Scope,
  args: z.output<typeof GenerateArgumentsSchema>,
  context: ToolContext,
) {
  const { wait, ...input } = args;
  const accepted = await invokeOperation(deps, scope, generateSlideshowOperation, input);
  if (!(wait ?? context.progress !== undefined)) return accepted;
  const deadline = Date.now() + MAX_WAIT_MS;
  let job: GenerationJob = await invokeOperation(deps, scope, getGenerationJobOperation, { id: accepted.jobId });
  let reported = '';
  for (;;) {
    const moment = `${job.completed}/${job.total} ${job.stage}`;
    if (moment !== reported) {
      reported = moment;
      await context.progress?.(job.completed, job.total, job.stage);
    }
    if (job.status === 'DONE' || job.status === 'FAILED' || Date.now() >= deadline) break;
    try {
      await sleep(POLL_MS, undefined, { signal: context.signal });
    } catch {
      break; // cancelled: stop waiting, leave the job running
    }
    job = await invokeOperation(deps, scope, getGenerationJobOperation, { id: accepted.jobId });
  }
  // The top level says where the job stands now, never the WAITING it was accepted in.
  return { ...accepted, status: job.status, job };
}
