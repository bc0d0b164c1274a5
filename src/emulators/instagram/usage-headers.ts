import type { Middleware } from 'koa';
import type { InstagramEmulatorOptions } from './options.js';
import type { InstagramState } from './state.js';

const HOUR_MS = 3_600_000;
/** Paths that are not Graph calls: the login pages, the code exchange host, post pages and the control API. */
const NOT_GRAPH = /^\/(?:oauth\/|__control\/|p\/)/;

/**
 * Counts Graph calls by `METHOD /path` (ids as `{id}`) and sets the throttling headers (contract 3.3):
 * `X-App-Usage` (percent of the app's hourly calls) on every Graph answer, and `X-Business-Use-Case-Usage`
 * keyed by the caller's IG user id once its token is known. A throttling fault sets them to 100 % with
 * `estimated_time_to_regain_access`.
 */
export function usageHeaders(state: InstagramState, options: InstagramEmulatorOptions): Middleware {
  return async (ctx, next) => {
    if (NOT_GRAPH.test(ctx.path)) {
      await next();
      return;
    }
    const key = `${ctx.method} ${ctx.path.replace(/\/\d+(?=\/|$)/g, '/{id}')}`;
    state.apiRequests.set(key, (state.apiRequests.get(key) ?? 0) + 1);
    const now = Date.now();
    state.callTimes.push(now);
    while ((state.callTimes[0] ?? now) < now - HOUR_MS) state.callTimes.shift();
    await next();
    const holders = new Set(state.grants.filter((g) => !g.revoked).map((g) => g.accountId)).size;
    const limit = options.appCallsPerHour * Math.max(1, holders);
    const { throttledFor, accountId } = ctx.state as { throttledFor?: number; accountId?: string };
    const percent =
      throttledFor === undefined ? Math.min(100, Math.round((state.callTimes.length / limit) * 100)) : 100;
    const usage = { call_count: percent, total_cputime: Math.round(percent / 4), total_time: Math.round(percent / 4) };
    ctx.set('X-App-Usage', JSON.stringify(usage));
    if (accountId) {
      const row = { type: 'instagram', ...usage, estimated_time_to_regain_access: throttledFor ?? 0 };
      ctx.set('X-Business-Use-Case-Usage', JSON.stringify({ [accountId]: [row] }));
    }
  };
}
