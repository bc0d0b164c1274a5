import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';

/** Requests per bucket and window; Discord's real numbers vary by route, this is in their range. */
export interface RateLimitSettings {
  limit: number;
  windowMs: number;
}

/**
 * Discord's per-route rate limits: every answer carries X-RateLimit-Limit, -Remaining, -Reset
 * (epoch seconds), -Reset-After (seconds) and -Bucket; past the limit it answers 429 with
 * `retry_after` and Retry-After, which discord.js waits out before trying again. A bucket is the
 * method and route with its major parameter (channel, guild, webhook) kept and message ids folded.
 */
export function rateLimits(settings: RateLimitSettings, now: () => number) {
  const windows = new Map<string, { resetAt: number; used: number }>();
  return async (ctx: Context, next: Next) => {
    const route = ctx.path.replace(/\/messages\/(?:\d+|@original|%40original)/, '/messages/:id');
    const key = `${ctx.method} ${route}`;
    const at = now();
    let window = windows.get(key);
    if (!window || window.resetAt <= at) {
      window = { resetAt: at + settings.windowMs, used: 0 };
      windows.set(key, window);
    }
    window.used += 1;
    const resetAfter = (window.resetAt - at) / 1000;
    ctx.set('X-RateLimit-Limit', String(settings.limit));
    ctx.set('X-RateLimit-Remaining', String(Math.max(settings.limit - window.used, 0)));
    ctx.set('X-RateLimit-Reset', (window.resetAt / 1000).toFixed(3));
    ctx.set('X-RateLimit-Reset-After', resetAfter.toFixed(3));
    ctx.set('X-RateLimit-Bucket', createHash('sha1').update(key).digest('hex').slice(0, 32));
    if (window.used > settings.limit) {
      ctx.status = 429;
      ctx.set('Retry-After', String(Math.ceil(resetAfter)));
      ctx.set('X-RateLimit-Scope', 'user');
      ctx.body = { message: 'You are being rate limited.', retry_after: resetAfter, global: false, code: 0 };
      return;
    }
    await next();
  };
}
