import type { AppContext } from './context.js';

/** Marks a response that carries a secret (token, code, key) as never to be cached (RFC 6749 5.1). */
export function noStore(ctx: AppContext): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
}
