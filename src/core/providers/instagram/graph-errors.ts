/** What Meta's usage headers said on a throttled answer (contract 3.3). */
export interface GraphUsage {
  /** `X-App-Usage.call_count`: percent of the app's hourly calls used, when sent. */
  appCallPercent: number | null;
  /** `estimated_time_to_regain_access` of `X-Business-Use-Case-Usage`, in ms; null when absent or 0. */
  retryAfterMs: number | null;
}

/**
 * A Graph answer carrying an `error` object (contract 3.1), or the code exchange's own error body (1.2:
 * `{error_type, code, error_message}`). Classify by `code` and `subcode`, never by `type` (nearly all are
 * OAuthException). Not an AppError: callers decide what a code means for Postdeck.
 */
export class GraphError extends Error {
  override readonly name = 'GraphError';
  readonly retryAfterMs: number | null;
  readonly appCallPercent: number | null;

  constructor(
    readonly httpStatus: number,
    readonly code: number,
    readonly subcode: number | null,
    readonly type: string | null,
    message: string,
    readonly userTitle: string | null,
    readonly userMessage: string | null,
    usage: GraphUsage = { appCallPercent: null, retryAfterMs: null },
    /** Meta's trace id, to quote to Meta support. */
    readonly traceId: string | null = null,
  ) {
    super(message);
    this.retryAfterMs = usage.retryAfterMs;
    this.appCallPercent = usage.appCallPercent;
  }

  /** One line for logs and attempt records (never a token). */
  get detail(): string {
    const sub = this.subcode === null ? '' : `/${this.subcode}`;
    const trace = this.traceId ? ` (fbtrace_id ${this.traceId})` : '';
    return `HTTP ${this.httpStatus} code ${this.code}${sub}: ${this.message}${trace}`;
  }

  /** Code 190: the access token is expired, revoked or invalid; only a new login gives a working one. */
  get tokenDead(): boolean {
    return this.code === 190;
  }
}

/**
 * No answer came: a timeout, a reset or a refused connection. `maybeArrived` is false only when no connection
 * was made at all, so Instagram cannot have acted on the request.
 */
export class GraphTransportError extends Error {
  override readonly name = 'GraphTransportError';

  constructor(
    override readonly cause: unknown,
    readonly maybeArrived: boolean,
    path: string,
  ) {
    super(`Instagram did not answer ${path}: ${(cause as Error | undefined)?.message ?? String(cause)}`);
  }
}

/** Reads the usage headers of an answer (malformed ones count as absent). */
export function usageOf(headers: Headers): GraphUsage {
  const app = parseJson(headers.get('x-app-usage')) as { call_count?: unknown } | null;
  const buc = parseJson(headers.get('x-business-use-case-usage')) as Record<string, unknown> | null;
  let regainMinutes = 0;
  for (const rows of Object.values(buc ?? {})) {
    for (const row of Array.isArray(rows) ? (rows as { estimated_time_to_regain_access?: unknown }[]) : []) {
      const minutes = Number(row.estimated_time_to_regain_access);
      if (Number.isFinite(minutes)) regainMinutes = Math.max(regainMinutes, minutes);
    }
  }
  const percent = Number(app?.call_count);
  return {
    appCallPercent: app && Number.isFinite(percent) ? percent : null,
    retryAfterMs: regainMinutes > 0 ? regainMinutes * 60_000 : null,
  };
}

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
