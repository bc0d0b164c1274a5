import type { Context } from 'koa';

/** A browser loading a page: GET or HEAD asking for HTML (programs and API clients do not). */
export function isPageLoad(ctx: Pick<Context, 'method' | 'get'>): boolean {
  return (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.get('accept').includes('text/html');
}
