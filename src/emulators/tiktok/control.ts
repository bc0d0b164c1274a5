import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { readText } from './envelope.js';
import { AccountSchema, FailureSchema, type EmulatorState } from './state.js';

const TokenActionSchema = z.object({ action: z.enum(['expire_access', 'expire_refresh', 'revoke']) });

/**
 * The control API tests use (JSON, under `/__control`): create and edit emulated accounts, expire or revoke
 * their tokens, queue injected failures, and count the API requests received (`/__control/requests`). It is not part of TikTok; nothing in core may call it.
 */
export function registerControl(router: Router, state: EmulatorState): void {
  router.get('/__control/requests', (ctx) => {
    ctx.body = { requests: Object.fromEntries(state.apiRequests) };
  });

  router.get('/__control/accounts', (ctx) => {
    ctx.body = { accounts: [...state.accounts.values()] };
  });

  router.post('/__control/accounts', async (ctx) => {
    const input = await parseBody(ctx, AccountSchema);
    if (!input) return;
    if (state.accounts.has(input.openId)) return problem(ctx, 409, `account ${input.openId} exists`);
    state.accounts.set(input.openId, input);
    state.save();
    ctx.status = 201;
    ctx.body = input;
  });

  router.get('/__control/accounts/:openId', (ctx) => {
    const account = state.accounts.get(ctx.params.openId ?? '');
    if (!account) return problem(ctx, 404, 'no such account');
    ctx.body = account;
  });

  router.patch('/__control/accounts/:openId', async (ctx) => {
    const account = state.accounts.get(ctx.params.openId ?? '');
    if (!account) return problem(ctx, 404, 'no such account');
    const changes = await parseBody(ctx, AccountSchema.partial().omit({ openId: true }));
    if (!changes) return;
    const updated = AccountSchema.parse({ ...account, ...stripUndefined(changes) });
    state.accounts.set(updated.openId, updated);
    state.save();
    ctx.body = updated;
  });

  router.post('/__control/accounts/:openId/failures', async (ctx) => {
    const account = state.accounts.get(ctx.params.openId ?? '');
    if (!account) return problem(ctx, 404, 'no such account');
    const failure = await parseBody(ctx, FailureSchema);
    if (!failure) return;
    account.failures.push(failure);
    state.save();
    ctx.status = 201;
    ctx.body = account;
  });

  router.post('/__control/accounts/:openId/tokens', async (ctx) => {
    const openId = ctx.params.openId ?? '';
    if (!state.accounts.has(openId)) return problem(ctx, 404, 'no such account');
    const input = await parseBody(ctx, TokenActionSchema);
    if (!input) return;
    const past = Date.now() - 1000;
    const grants = state.grants.filter((g) => g.openId === openId && !g.revoked);
    for (const grant of grants) {
      if (input.action === 'expire_access') grant.accessExpiresAt = past;
      if (input.action === 'expire_refresh') grant.refreshExpiresAt = past;
      if (input.action === 'revoke') state.revokeGrant(grant);
    }
    state.save();
    ctx.body = { affected: grants.length };
  });
}

/** The JSON body parsed with `schema`, or undefined after answering 400. */
export async function parseBody<T>(ctx: Context, schema: z.ZodType<T>): Promise<T | undefined> {
  let raw: unknown;
  try {
    const text = await readText(ctx);
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

// Partial parsing keeps absent keys out, but defaults could still add undefined ones; drop them.
function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A control-API error: `{ error: message }`. */
export function problem(ctx: Context, status: number, message: string): void {
  ctx.status = status;
  ctx.body = { error: message };
}
