import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { InstagramEmulatorOptions } from './options.js';
import { readBodyText } from './params.js';
import { AccountSchema, FaultSchema, type InstagramState } from './state.js';

const TokenActionSchema = z.object({ action: z.enum(['expire', 'revoke']) });
const ClockSchema = z.object({ advanceSec: z.number().int().positive() });
const SettingsSchema = z
  .object({
    imageProcessingMs: z.number().int().min(0),
    videoProcessingMs: z.number().int().min(0),
    quotaTotal: z.number().int().min(0),
    containerCap: z.number().int().min(0),
    maxHashtags: z.number().int().min(0),
    maxMentions: z.number().int().min(0),
    fetchTimeoutMs: z.number().int().positive(),
  })
  .partial();

/**
 * The control API (JSON under `/__control`; not part of Instagram, nothing in core may call it): accounts
 * (business, creator or personal), faults, tokens, the clock, settings and request counts.
 */
export function registerControl(router: Router, state: InstagramState, options: InstagramEmulatorOptions): void {
  router.get('/__control/requests', (ctx) => {
    ctx.body = { requests: Object.fromEntries(state.apiRequests), republishAttempts: state.republishAttempts };
  });

  router.get('/__control/accounts', (ctx) => {
    ctx.body = { accounts: [...state.accounts.values()] };
  });

  router.post('/__control/accounts', async (ctx) => {
    const input = await parseBody(ctx, AccountSchema);
    if (!input) return;
    if (state.accountById(input.id) || state.accountById(input.userId)) {
      return problem(ctx, 409, `account ${input.id} exists`);
    }
    state.accounts.set(input.id, input);
    ctx.status = 201;
    ctx.body = input;
  });

  router.patch('/__control/accounts/:id', async (ctx) => {
    const account = state.accountById(ctx.params.id ?? '');
    if (!account) return problem(ctx, 404, 'no such account');
    const changes = await parseBody(ctx, AccountSchema.partial().omit({ id: true, userId: true }));
    if (!changes) return;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    Object.assign(account, AccountSchema.parse({ ...account, ...defined }));
    ctx.body = account;
  });

  router.post('/__control/accounts/:id/faults', async (ctx) => {
    const account = state.accountById(ctx.params.id ?? '');
    if (!account) return problem(ctx, 404, 'no such account');
    const fault = await parseBody(ctx, FaultSchema);
    if (!fault) return;
    account.faults.push(fault);
    ctx.status = 201;
    ctx.body = account;
  });

  router.post('/__control/accounts/:id/tokens', async (ctx) => {
    const account = state.accountById(ctx.params.id ?? '');
    if (!account) return problem(ctx, 404, 'no such account');
    const input = await parseBody(ctx, TokenActionSchema);
    if (!input) return;
    const grants = state.grants.filter((g) => g.accountId === account.id && !g.revoked);
    for (const grant of grants) {
      if (input.action === 'expire') grant.expiresAt = state.now() - 1000;
      else grant.revoked = true;
    }
    ctx.body = { affected: grants.length };
  });

  router.post('/__control/clock', async (ctx) => {
    const input = await parseBody(ctx, ClockSchema);
    if (!input) return;
    state.clockOffsetMs += input.advanceSec * 1000;
    ctx.body = { now: new Date(state.now()).toISOString(), offsetSec: state.clockOffsetMs / 1000 };
  });

  router.patch('/__control/settings', async (ctx) => {
    const input = await parseBody(ctx, SettingsSchema);
    if (!input) return;
    Object.assign(options, Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)));
    ctx.body = options;
  });
}

/** The JSON body parsed with `schema`, or undefined after answering 400. */
export async function parseBody<T>(ctx: Context, schema: z.ZodType<T>): Promise<T | undefined> {
  let raw: unknown;
  try {
    const text = await readBodyText(ctx);
    raw = text ? JSON.parse(text) : {};
  } catch {
    problem(ctx, 400, 'body must be JSON');
    return undefined;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    problem(ctx, 400, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return undefined;
  }
  return parsed.data;
}

/** A control-API error: `{ error: message }`. */
export function problem(ctx: Context, status: number, message: string): void {
  ctx.status = status;
  ctx.body = { error: message };
}
