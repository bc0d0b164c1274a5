import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Logger } from '../../../logger.js';
import { NO_METRICS, type Metrics } from '../../ops/metrics.js';
import type { TikTokClientConfig } from './config.js';
import { TikTokApiError } from './errors.js';
import { parseJsonKeepingBigInts } from './json.js';
import { LimiterFull, TokenRateLimiter, type TikTokCaller } from './rate-limiter.js';

/** Tuning of the transport; defaults suit production, tests shorten them. */
export interface TikTokHttpOptions {
  fetch?: typeof fetch;
  /** Extra attempts for safe calls after a 429, a 5xx or a network error. */
  maxRetries?: number;
  baseDelayMs?: number;
  timeoutMs?: number;
  limiter?: TokenRateLimiter;
  /** Counts every exchange by endpoint and status (429s included, retried or not). */
  metrics?: Metrics;
}

const OAuthErrorSchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
  log_id: z.string().optional(),
});
const EnvelopeSchema = z.object({
  data: z.unknown().optional(),
  error: z.object({
    code: z.string(),
    message: z.string().optional(),
    log_id: z.string().optional(),
    logid: z.string().optional(),
  }),
});

/** One v2 API answer whose `error.code` was accepted: the data (validated) and the code. */
export interface ApiAnswer<T> {
  data: T;
  code: string;
  message: string;
}

/**
 * The TikTok transport: form posts to the OAuth endpoints, enveloped JSON to the v2 API, every body
 * parsed keeping long integers as strings and validated by a schema, retries with backoff only for
 * calls that are safe to repeat, and the client-side per-token rate limiter. Tokens are never logged.
 */
export class TikTokHttp {
  private readonly fetch: typeof fetch;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly timeoutMs: number;
  private readonly metrics: Metrics;
  readonly limiter: TokenRateLimiter;

  constructor(
    readonly config: TikTokClientConfig,
    private readonly logger: Logger,
    options: TikTokHttpOptions = {},
  ) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.maxRetries = options.maxRetries ?? 3;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.limiter = options.limiter ?? new TokenRateLimiter();
    this.metrics = options.metrics ?? NO_METRICS;
  }

  /** POSTs a form to an OAuth endpoint and validates the flat answer; throws TikTokApiError on `error`. */
  async oauth<T>(path: string, form: Record<string, string>, schema: z.ZodType<T>, safe: boolean): Promise<T> {
    const init: RequestInit = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-cache' },
      body: new URLSearchParams(form).toString(),
    };
    const { status, body } = await this.send(path, init, safe);
    // TikTok documents bodies, not statuses, for OAuth errors (contract 1.2): the body decides.
    const failure = OAuthErrorSchema.safeParse(body);
    if (failure.success) {
      const e = failure.data;
      throw new TikTokApiError(e.error, e.error_description ?? e.error, status, 'oauth', e.log_id);
    }
    if (status >= 400) throw new TikTokApiError('http_error', `HTTP ${status} from ${path}`, status, 'oauth');
    return validateResponse(schema, body, path);
  }

  /**
   * Calls a v2 endpoint with the bearer token; `acceptCodes` lists non-ok codes that are answers rather
   * than failures (creator_info's HTTP 200 "cannot post now"). `limit` is the per-token limit per minute.
   */
  async api<T>(request: {
    method: 'GET' | 'POST';
    path: string;
    accessToken: string;
    query?: Record<string, string>;
    body?: unknown;
    schema: z.ZodType<T>;
    safe: boolean;
    limit: number;
    acceptCodes?: ReadonlySet<string>;
    /** A request's calls are refused at once when the limit would make them wait long; default background. */
    caller?: TikTokCaller;
  }): Promise<ApiAnswer<T>> {
    const tokenKey = createHash('sha256').update(request.accessToken).digest('hex').slice(0, 32);
    try {
      await this.limiter.acquire(`${request.path}:${tokenKey}`, request.limit, request.caller);
    } catch (error) {
      if (!(error instanceof LimiterFull)) throw error;
      throw limitUsedUp(request.path, request.limit, error.retryAfterMs);
    }
    const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
    const headers: Record<string, string> = { authorization: `Bearer ${request.accessToken}` };
    if (request.method === 'POST') headers['content-type'] = 'application/json; charset=UTF-8';
    const init: RequestInit = { method: request.method, headers };
    if (request.method === 'POST' && request.body !== undefined) init.body = JSON.stringify(request.body);
    const { status, body, retryAfter } = await this.send(request.path + query, init, request.safe);
    const envelope = EnvelopeSchema.safeParse(body);
    if (!envelope.success) {
      throw new TikTokApiError(
        status >= 500 ? 'internal_error' : 'http_error',
        `HTTP ${status}, no envelope`,
        status,
        'api',
      );
    }
    const { code, message = '', log_id, logid } = envelope.data.error;
    if (code !== 'ok' && !(status < 300 && request.acceptCodes?.has(code))) {
      throw new TikTokApiError(code || 'internal_error', message, status, 'api', log_id ?? logid, retryAfter);
    }
    return { data: validateResponse(request.schema, envelope.data.data, request.path), code, message };
  }

  private async send(
    path: string,
    init: RequestInit,
    safe: boolean,
  ): Promise<{ status: number; body: unknown; retryAfter?: number }> {
    // The path without its query: one label value per endpoint.
    const endpoint = path.split('?', 1)[0] ?? path;
    for (let attempt = 0; ; attempt += 1) {
      const retriesLeft = safe && attempt < this.maxRetries;
      let response: Response;
      try {
        response = await this.fetch(this.config.apiBaseUrl + path, {
          ...init,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (error) {
        this.metrics.providerCall('tiktok', endpoint, 'network_error');
        if (!retriesLeft) throw networkError(error);
        await this.backoff(path, attempt, 'network error');
        continue;
      }
      this.metrics.providerCall('tiktok', endpoint, response.status);
      const text = await response.text();
      const retryAfter = Number(response.headers.get('retry-after')) || undefined;
      if ((response.status === 429 || response.status >= 500) && retriesLeft) {
        await this.backoff(path, attempt, `HTTP ${response.status}`, retryAfter);
        continue;
      }
      let body: unknown;
      try {
        body = text ? parseJsonKeepingBigInts(text) : {};
      } catch {
        body = undefined;
      }
      return { status: response.status, body, retryAfter };
    }
  }

  private async backoff(path: string, attempt: number, why: string, retryAfterSec?: number): Promise<void> {
    const delay = retryAfterSec ? retryAfterSec * 1000 : this.baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2);
    this.logger.debug({ path, attempt, why, delayMs: Math.round(delay) }, 'tiktok call retried');
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** A request refused by the client-side limiter: TikTok's own 429, told before it is spent. */
function limitUsedUp(path: string, limit: number, retryAfterMs: number): TikTokApiError {
  const seconds = Math.ceil(retryAfterMs / 1000);
  const message = `${path} allows ${limit} calls a minute per account and requests may use only part of that; retry in ${seconds} s`;
  return new TikTokApiError('rate_limit_exceeded', message, 429, 'api', undefined, seconds);
}

/** Validates a response part against its schema, as TikTokApiError `unexpected_response` when it does not fit. */
export function validateResponse<T>(schema: z.ZodType<T>, value: unknown, path: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  throw new TikTokApiError('unexpected_response', `${path} answered an unexpected shape (${where})`, 200, 'api');
}

// Failures to open a connection at all: the request never left, so TikTok cannot have acted on it.
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** `connection_failed` when no connection was made (fetch puts the socket error in `cause`), else `network_error`. */
function networkError(error: unknown): TikTokApiError {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const notConnected = typeof cause?.code === 'string' && NOT_CONNECTED.has(cause.code);
  return new TikTokApiError(notConnected ? 'connection_failed' : 'network_error', (error as Error).message, 0, 'api');
}
