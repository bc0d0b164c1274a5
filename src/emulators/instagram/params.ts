import type { Context } from 'koa';

const BODY_LIMIT_BYTES = 1024 * 1024;

/** Reads a request body of at most 1 MiB as text, refusing a larger one before buffering it. */
export async function readBodyText(ctx: Context): Promise<string> {
  if (Number(ctx.get('content-length') || 0) > BODY_LIMIT_BYTES) throw new Error('request body too large');
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > BODY_LIMIT_BYTES) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The request's parameters (contract 2.1): the query string, then a form or JSON body over it, since Meta
 * accepts all three. JSON arrays and objects are kept as their JSON text, as a client would URL-encode them.
 */
export async function readParams(ctx: Context): Promise<Map<string, string>> {
  const params = new Map(new URLSearchParams(ctx.querystring));
  if (ctx.method === 'GET' || ctx.method === 'HEAD') return params;
  const text = await readBodyText(ctx);
  if (!text) return params;
  if (ctx.is('application/json')) {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      for (const [key, value] of Object.entries(body)) {
        params.set(key, typeof value === 'string' ? value : JSON.stringify(value));
      }
    }
  } else {
    for (const [key, value] of new URLSearchParams(text)) params.set(key, value);
  }
  return params;
}

/** The access token: the `access_token` parameter or `Authorization: Bearer|OAuth <token>`. */
export function tokenOf(ctx: Context, params: Map<string, string>): string | undefined {
  const header = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(ctx.get('authorization'));
  return params.get('access_token') ?? header?.[1];
}

/** A boolean parameter as Meta reads it (`true`, `1`). */
export function flag(value: string | undefined): boolean {
  return value === 'true' || value === '1';
}

/** The `fields` parameter as a list. */
export function fieldsOf(params: Map<string, string>): string[] {
  return (params.get('fields') ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
}
