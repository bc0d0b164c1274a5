import type { Logger } from '../../../logger.js';
import { NO_METRICS, type Metrics } from '../../ops/metrics.js';
import type { InstagramClientConfig } from './config.js';
import { GraphError, GraphTransportError, usageOf } from './graph-errors.js';

export { GraphError, GraphTransportError } from './graph-errors.js';

/** Tuning of the transport; defaults suit production, tests shorten them. */
export interface InstagramHttpOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Counts every exchange by endpoint and status. */
  metrics?: Metrics;
}

// Failures to open a connection at all: the request never left, so Instagram cannot have acted on it.
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/**
 * The Instagram transport: Graph calls on versioned paths with the token in `Authorization: Bearer` (never in a
 * URL, so never in a log), POST bodies form-encoded, and the two OAuth exchanges. No retries: whether a call
 * is safe to repeat is the caller's to know (a `media_publish` is not).
 */
export class InstagramHttp {
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly metrics: Metrics;

  constructor(
    readonly config: InstagramClientConfig,
    private readonly logger: Logger,
    options: InstagramHttpOptions = {},
  ) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.metrics = options.metrics ?? NO_METRICS;
  }

  /** GET a Graph path (`/me`, `/{id}`), parameters in the query string. */
  get<T>(
    path: string,
    params: Record<string, string>,
    accessToken: string,
    options?: { timeoutMs?: number },
  ): Promise<T> {
    const query = new URLSearchParams(params).toString();
    const url = `${this.graphUrl(path)}${query ? `?${query}` : ''}`;
    return this.send<T>(path, url, { method: 'GET', headers: bearer(accessToken) }, options?.timeoutMs);
  }

  /** POST to a Graph path (`/{ig-user-id}/media`), parameters form-encoded in the body. */
  post<T>(
    path: string,
    params: Record<string, string>,
    accessToken: string,
    options?: { timeoutMs?: number },
  ): Promise<T> {
    const init: RequestInit = {
      method: 'POST',
      headers: { ...bearer(accessToken), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    };
    return this.send<T>(path, this.graphUrl(path), init, options?.timeoutMs);
  }

  /**
   * The code exchange at the token host (contract 1.2); its errors are not Graph-shaped
   * (`{error_type, code, error_message}`) and are thrown as GraphError all the same.
   */
  exchangeCode<T>(form: Record<string, string>): Promise<T> {
    const init: RequestInit = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    };
    return this.send<T>('/oauth/access_token', `${this.config.tokenBaseUrl}/oauth/access_token`, init);
  }

  /**
   * The unversioned token endpoints of the Graph host (`/access_token`, `/refresh_access_token`, contract 1.3
   * and 1.4), which take the token as the `access_token` parameter.
   */
  tokenCall<T>(path: '/access_token' | '/refresh_access_token', params: Record<string, string>): Promise<T> {
    const url = `${this.config.graphBaseUrl}${path}?${new URLSearchParams(params).toString()}`;
    return this.send<T>(path, url, { method: 'GET' });
  }

  private graphUrl(path: string): string {
    return `${this.config.graphBaseUrl}/${this.config.graphVersion}${path}`;
  }

  private async send<T>(path: string, url: string, init: RequestInit, timeoutMs = this.timeoutMs): Promise<T> {
    // Ids become `{id}`: one metric label per endpoint, never a user's id.
    const endpoint = path.replace(/\/\d+(?=\/|$)/g, '/{id}');
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      text = await response.text();
    } catch (error) {
      this.metrics.providerCall('instagram', endpoint, 'network_error');
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      this.logger.debug({ endpoint, code }, 'instagram call got no answer');
      throw new GraphTransportError(error, !(typeof code === 'string' && NOT_CONNECTED.has(code)), endpoint);
    }
    this.metrics.providerCall('instagram', endpoint, response.status);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = undefined;
    }
    const error = errorOf(response, body);
    if (error) throw error;
    if (response.status >= 400 || body === undefined || typeof body !== 'object' || body === null) {
      throw new GraphError(response.status, -1, null, null, `HTTP ${response.status} from ${endpoint}`, null, null);
    }
    return body as T;
  }
}

function bearer(accessToken: string): Record<string, string> {
  return { authorization: `Bearer ${accessToken}` };
}

interface GraphErrorBody {
  message?: unknown;
  type?: unknown;
  code?: unknown;
  error_subcode?: unknown;
  error_user_title?: unknown;
  error_user_msg?: unknown;
  fbtrace_id?: unknown;
}

/** The Graph `error` object of an answer, or the code exchange's flat error; null when the answer is none. */
function errorOf(response: Response, body: unknown): GraphError | null {
  if (typeof body !== 'object' || body === null) return null;
  const usage = usageOf(response.headers);
  const graph = (body as { error?: unknown }).error;
  if (typeof graph === 'object' && graph !== null) {
    const e = graph as GraphErrorBody;
    return new GraphError(
      response.status,
      typeof e.code === 'number' ? e.code : -1,
      typeof e.error_subcode === 'number' ? e.error_subcode : null,
      stringOrNull(e.type),
      stringOrNull(e.message) ?? `HTTP ${response.status}`,
      stringOrNull(e.error_user_title),
      stringOrNull(e.error_user_msg),
      usage,
      stringOrNull(e.fbtrace_id),
    );
  }
  const flat = body as { error_type?: unknown; code?: unknown; error_message?: unknown };
  if (typeof flat.error_message === 'string') {
    const code = typeof flat.code === 'number' ? flat.code : response.status;
    return new GraphError(
      response.status,
      code,
      null,
      stringOrNull(flat.error_type),
      flat.error_message,
      null,
      null,
      usage,
    );
  }
  return null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
