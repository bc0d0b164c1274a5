import type { Context } from 'koa';
import { z } from 'zod';
import { openAiError } from './errors.js';

export const FaultSchema = z.object({
  endpoint: z.enum(['chat', 'images', 'any']).default('any'),
  kind: z.enum([
    'rate_limit',
    'insufficient_quota',
    'server_error',
    'timeout',
    'malformed_json',
    'schema_violation',
    'refusal',
    'moderation_blocked',
    'caption_text',
  ]),
  /** How many matching requests it hits. */
  times: z.int().min(1).default(1),
  /** Only requests whose prompt or message text contains this. */
  match: z.string().optional(),
  retryAfterSeconds: z.number().min(0).default(1),
  /** caption_text: what every slide caption of a caption answer says instead (blank, cut mid-emoji…). */
  text: z.string().optional(),
});
export type Fault = z.infer<typeof FaultSchema>;
export type FaultKind = Fault['kind'];

/** The queued faults; the first one matching a request is used up by it. */
export class FaultQueue {
  private readonly queue: Fault[] = [];

  add(fault: Fault): void {
    this.queue.push({ ...fault });
  }

  clear(): void {
    this.queue.length = 0;
  }

  list(): readonly Fault[] {
    return this.queue;
  }

  take(endpoint: 'chat' | 'images', text: string): Fault | undefined {
    const index = this.queue.findIndex(
      (fault) =>
        (fault.endpoint === 'any' || fault.endpoint === endpoint) && (!fault.match || text.includes(fault.match)),
    );
    const fault = this.queue[index];
    if (!fault) return undefined;
    fault.times -= 1;
    if (fault.times <= 0) this.queue.splice(index, 1);
    return { ...fault };
  }
}

/**
 * Answers with a fault that fails the whole request, as OpenAI does; returns false for the faults that
 * shape a successful answer instead (malformed JSON, a schema violation, a refusal, scripted caption
 * text), or `timeout`.
 */
export function answerFault(ctx: Context, fault: Fault, model: string, id: string): boolean {
  switch (fault.kind) {
    case 'rate_limit':
      ctx.set('retry-after', String(fault.retryAfterSeconds));
      ctx.set('retry-after-ms', String(Math.round(fault.retryAfterSeconds * 1000)));
      openAiError(ctx, 429, {
        message: `Rate limit reached for ${model} in organization org-emulator on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in ${fault.retryAfterSeconds}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
        type: 'requests',
        code: 'rate_limit_exceeded',
      });
      return true;
    case 'insufficient_quota':
      openAiError(ctx, 429, {
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      });
      return true;
    case 'server_error':
      openAiError(ctx, 500, {
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
      });
      return true;
    case 'moderation_blocked':
      openAiError(ctx, 400, {
        message: `Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com and include the request ID ${id}. safety_violations=[violence].`,
        type: 'image_generation_user_error',
        code: 'moderation_blocked',
      });
      return true;
    default:
      return false;
  }
}
