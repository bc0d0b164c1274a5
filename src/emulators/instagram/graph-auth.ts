import type { Context } from 'koa';
import { graphError } from './graph-error.js';
import { readParams, tokenOf } from './params.js';
import type { Account, FaultEndpoint, Grant, InstagramState } from './state.js';

/** A Graph call's caller: its token's grant, its account and its parameters. */
export interface GraphCall {
  grant: Grant;
  account: Account;
  params: Map<string, string>;
}

/**
 * Reads the parameters and checks the token (contract 1.6): missing, unknown, revoked or expired tokens get code
 * 190 (expired: subcode 463, revoked: 458). Then a fault queued for `endpoint` answers, unless it takes effect
 * first (`afterSuccess`), in which case the caller answers it through `answerFault` once the work is done.
 */
export async function graphCall(
  ctx: Context,
  state: InstagramState,
  endpoint: FaultEndpoint,
): Promise<(GraphCall & { lateFault?: ReturnType<InstagramState['takeFault']> }) | undefined> {
  let params: Map<string, string>;
  try {
    params = await readParams(ctx);
  } catch {
    graphError(ctx, { code: 100, message: '(#100) The request body could not be parsed.' });
    return undefined;
  }
  const token = tokenOf(ctx, params);
  if (!token) {
    graphError(ctx, {
      code: 2500,
      message: 'An active access token must be used to query information about the current user.',
    });
    return undefined;
  }
  const grant = state.grantOf(token);
  const account = grant && state.accounts.get(grant.accountId);
  if (!grant || !account) return void graphError(ctx, { code: 190 });
  if (grant.revoked) {
    return void graphError(ctx, {
      code: 190,
      subcode: 458,
      message: 'Error validating access token: The user has not authorized application.',
    });
  }
  if (grant.expiresAt <= state.now()) {
    return void graphError(ctx, {
      code: 190,
      subcode: 463,
      message: `Error validating access token: Session has expired on ${new Date(grant.expiresAt).toUTCString()}.`,
    });
  }
  (ctx.state as { accountId?: string }).accountId = account.userId;
  const fault = state.takeFault(account.id, endpoint);
  if (fault && !fault.afterSuccess) {
    answerFault(ctx, fault);
    return undefined;
  }
  return { grant, account, params, lateFault: fault };
}

/** Answers an injected fault, with throttling headers at 100 % when it carries `regainMinutes`, or cuts the connection. */
export function answerFault(ctx: Context, fault: NonNullable<ReturnType<InstagramState['takeFault']>>): void {
  if (fault.drop) {
    ctx.respond = false;
    ctx.req.socket.destroy();
    return;
  }
  if (fault.regainMinutes !== undefined) {
    (ctx.state as { throttledFor?: number }).throttledFor = fault.regainMinutes;
  }
  graphError(ctx, {
    code: fault.code ?? 1,
    subcode: fault.subcode,
    message: fault.message,
    httpStatus: fault.httpStatus,
  });
}

/** Refuses (code 10) a call whose token lacks `scope`. */
export function requireScope(ctx: Context, call: GraphCall, scope: string): boolean {
  if (call.grant.scopes.includes(scope)) return true;
  graphError(ctx, { code: 10, message: `(#10) Application does not have permission for this action (${scope})` });
  return false;
}
