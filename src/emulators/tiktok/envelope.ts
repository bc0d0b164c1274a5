import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { readBodyText } from './read-body.js';

/** A TikTok-shaped log id: `YYYYMMDDhhmmss` plus hex (contract 2). */
export function logId(): string {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${stamp}${randomBytes(10).toString('hex').toUpperCase()}`;
}

/** Answers with the v2 success envelope. */
export function apiOk(ctx: Context, data: unknown): void {
  ctx.status = 200;
  ctx.body = { data, error: { code: 'ok', message: '', log_id: logId() } };
}

/** Answers with the v2 error envelope; `data: {}` as in the observed 401 body. */
export function apiError(ctx: Context, status: number, code: string, message: string, data: unknown = {}): void {
  ctx.status = status;
  ctx.body = { data, error: { code, message, log_id: logId() } };
}

/** Answers with the flat OAuth error body (contract 1.2), which has no envelope. */
export function oauthError(ctx: Context, status: number, error: string, description: string): void {
  ctx.status = status;
  ctx.body = { error, error_description: description, log_id: logId() };
}

/** Reads a request body of at most 1 MiB as text (the emulator answers any failure generically). */
export function readText(ctx: Context): Promise<string> {
  return readBodyText(ctx, 1024 * 1024);
}

/** Reads a form body, or undefined when the request is not `application/x-www-form-urlencoded`. */
export async function readForm(ctx: Context): Promise<URLSearchParams | undefined> {
  if (!ctx.is('application/x-www-form-urlencoded')) return undefined;
  return new URLSearchParams(await readText(ctx));
}
