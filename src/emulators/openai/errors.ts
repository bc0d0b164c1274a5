import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';

/** OpenAI's error body: `{error: {message, type, param, code}}`. */
export function openAiError(
  ctx: Context,
  status: number,
  error: { message: string; type: string; param?: string | null; code?: string | null },
): void {
  ctx.status = status;
  ctx.body = {
    error: { message: error.message, type: error.type, param: error.param ?? null, code: error.code ?? null },
  };
}

/** A request id as OpenAI shapes it, sent as `x-request-id`. */
export function requestId(): string {
  return `req_${randomBytes(16).toString('hex')}`;
}

/** The headers every OpenAI API response carries (rate-limit figures are fixed and generous). */
export function setStandardHeaders(ctx: Context, id: string, startedAt: number): void {
  ctx.set('x-request-id', id);
  ctx.set('openai-version', '2020-10-01');
  ctx.set('openai-organization', 'org-emulator');
  ctx.set('openai-processing-ms', String(Date.now() - startedAt));
  ctx.set('x-ratelimit-limit-requests', '500');
  ctx.set('x-ratelimit-remaining-requests', '499');
  ctx.set('x-ratelimit-reset-requests', '120ms');
  ctx.set('x-ratelimit-limit-tokens', '200000');
  ctx.set('x-ratelimit-remaining-tokens', '199000');
  ctx.set('x-ratelimit-reset-tokens', '300ms');
}
