import type { Context } from 'koa';
import { apiError } from './envelope.js';
import type { Account, EmulatorState, Failure, Grant } from './state.js';

/** The caller behind a bearer token. */
export interface Caller {
  grant: Grant;
  account: Account;
}

/** The caller of a valid, unexpired access token, or undefined after answering 401 `access_token_invalid`. */
export function authenticate(ctx: Context, state: EmulatorState): Caller | undefined {
  const token = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1] ?? '';
  const grant = state.grantByAccess(token);
  const account = grant && state.accounts.get(grant.openId);
  if (!grant || !account || grant.accessExpiresAt <= Date.now()) {
    apiError(ctx, 401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
    return undefined;
  }
  return { grant, account };
}

/** True when the grant holds one of `scopes`; otherwise answers 401 `scope_not_authorized`. */
export function requireScope(ctx: Context, caller: Caller, scopes: string[]): boolean {
  if (scopes.some((s) => caller.grant.scopes.includes(s))) return true;
  apiError(ctx, 401, 'scope_not_authorized', `The user did not authorize the scope required: ${scopes.join(' or ')}.`);
  return false;
}

/** True when an injected failure answered this call (see FailureSchema). */
export function injectedFailure(
  ctx: Context,
  state: EmulatorState,
  openId: string,
  endpoint: Failure['endpoint'],
): boolean {
  const failure = state.takeFailure(openId, endpoint);
  if (failure) apiError(ctx, failure.status, failure.code, 'Injected failure.');
  return failure !== undefined;
}

/** Authentication, one scope and injected failures together: the caller, or undefined once answered. */
export function authorize(
  ctx: Context,
  state: EmulatorState,
  scope: string,
  endpoint: Failure['endpoint'],
): Caller | undefined {
  const caller = authenticate(ctx, state);
  if (!caller || !requireScope(ctx, caller, [scope])) return undefined;
  return injectedFailure(ctx, state, caller.account.openId, endpoint) ? undefined : caller;
}

/** A sliding 60-second window per access token and endpoint (contract 3 and 7). */
export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();

  /** Counts the call and answers true, or answers 429 `rate_limit_exceeded` and false. */
  admit(ctx: Context, grant: Grant, endpoint: string, limit: number): boolean {
    const key = `${endpoint}:${grant.accessToken}`;
    const now = Date.now();
    const recent = (this.hits.get(key) ?? []).filter((t) => t > now - 60_000);
    if (recent.length >= limit) {
      this.hits.set(key, recent);
      apiError(ctx, 429, 'rate_limit_exceeded', 'API rate limit exceeded, please retry later.');
      return false;
    }
    recent.push(now);
    this.hits.set(key, recent);
    return true;
  }
}
