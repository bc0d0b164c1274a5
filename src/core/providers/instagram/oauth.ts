import { z } from 'zod';
import { INSTAGRAM_SCOPES } from './config.js';
import { GraphError } from './graph-errors.js';
import type { InstagramHttp } from './graph.js';
import type { InstagramToken } from './connect/tokens.js';

/** The consent-page URL of a new connection (contract 1.1); `state` is the caller's single-use CSRF value. */
export function buildInstagramAuthorizeUrl(http: InstagramHttp, state: string): string {
  const url = new URL('/oauth/authorize', http.config.authBaseUrl);
  url.searchParams.set('enable_fb_login', '0');
  url.searchParams.set('client_id', http.config.appId);
  url.searchParams.set('redirect_uri', http.config.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', INSTAGRAM_SCOPES.join(','));
  url.searchParams.set('state', state);
  return url.toString();
}

// Flat or wrapped in `data: [...]`, `user_id` a string or a number, `permissions` an array or a comma string (1.2).
const ShortTokenSchema = z.object({
  access_token: z.string().min(1),
  user_id: z.union([z.string(), z.number()]).optional(),
  permissions: z.union([z.array(z.string()), z.string()]).optional(),
});
const ExchangeAnswerSchema = z.union([ShortTokenSchema, z.object({ data: z.array(ShortTokenSchema).min(1) })]);
const LongTokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().int().positive() });

/**
 * Redeems a code for a short-lived token, then exchanges that for the 60-day one (contract 1.2, 1.3). Never
 * retried: a code is single use. The scopes are the ones the person granted (fewer may be ticked than asked).
 */
export async function exchangeInstagramCode(http: InstagramHttp, code: string, now: Date): Promise<InstagramToken> {
  const answer = parse(
    ExchangeAnswerSchema,
    await http.exchangeCode<unknown>({
      client_id: http.config.appId,
      client_secret: http.config.appSecret,
      grant_type: 'authorization_code',
      redirect_uri: http.config.redirectUri,
      // Instagram appends `#_` to the redirect; it is not part of the code (contract 1.1).
      code: code.replace(/#_$/, ''),
    }),
    '/oauth/access_token',
  );
  const short = 'data' in answer ? answer.data[0]! : answer;
  const permissions = short.permissions ?? [];
  const scopes = (Array.isArray(permissions) ? permissions : permissions.split(/[\s,]+/)).filter(Boolean);
  const long = parse(
    LongTokenSchema,
    await http.tokenCall<unknown>('/access_token', {
      grant_type: 'ig_exchange_token',
      client_secret: http.config.appSecret,
      access_token: short.access_token,
    }),
    '/access_token',
  );
  return { accessToken: long.access_token, expiresAt: expiry(now, long.expires_in), issuedAt: now, scopes };
}

/** Renews a long-lived token that is at least 24 h old and not expired (contract 1.4); the scopes stay. */
export async function refreshInstagramToken(
  http: InstagramHttp,
  token: InstagramToken,
  now: Date,
): Promise<InstagramToken> {
  const answer = parse(
    LongTokenSchema,
    await http.tokenCall<unknown>('/refresh_access_token', {
      grant_type: 'ig_refresh_token',
      access_token: token.accessToken,
    }),
    '/refresh_access_token',
  );
  return {
    accessToken: answer.access_token,
    expiresAt: expiry(now, answer.expires_in),
    issuedAt: now,
    scopes: token.scopes,
  };
}

function expiry(now: Date, seconds: number): Date {
  return new Date(now.getTime() + seconds * 1000);
}

/** An answer of an unexpected shape, as a GraphError (code -1) so callers treat it as Instagram failing. */
export function parse<T>(schema: z.ZodType<T>, value: unknown, path: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  throw new GraphError(200, -1, null, null, `${path} answered an unexpected shape (${where})`, null, null);
}
