/**
 * What core reports to the operator's metrics, as plain calls: the composition root implements it
 * (with prom-client, src/app/metrics), tests and tools that need none get `NO_METRICS`. Every label
 * comes from a small fixed set (job names, tool names, endpoint paths), never from ids or user input.
 */
export interface Metrics {
  /** A job or due task ran to its end: `completed`, or `failed` (retried later or given up). */
  jobRun(name: string, state: 'completed' | 'failed'): void;
  /** A post left PUBLISHING, on its account's network (`unknown` when the account is gone). */
  publishOutcome(provider: 'tiktok' | 'instagram' | 'unknown', outcome: 'published' | 'failed'): void;
  /** One HTTP exchange with a provider; `status` is the HTTP status, or `network_error` when none came. */
  providerCall(provider: 'tiktok' | 'instagram' | 'openai', endpoint: string, status: number | 'network_error'): void;
  /** Credits taken from a pool (`caption`, `image`). */
  creditsSpent(pool: string, amount: number): void;
  /** An MCP tool call answered: `ok`, or `error` (an isError result). */
  toolCall(tool: string, outcome: 'ok' | 'error'): void;
  /** A chat platform's request answered (`ok` below 400, else `rejected` or `error`). */
  chatInteraction(platform: string, outcome: 'ok' | 'rejected' | 'error'): void;
  /**
   * One webhook attempt ended: `delivered` (a 2xx), `failed` (retried later) or `gave_up` (failed past its
   * retry window). `statusClass` is the answer's class (`2xx` … `5xx`), or `none` when no answer came.
   */
  webhookAttempt(event: string, outcome: WebhookAttemptOutcome, statusClass: string): void;
  /** A webhook delivery succeeded `seconds` after its event happened. */
  webhookDelivered(event: string, seconds: number): void;
}

export type WebhookAttemptOutcome = 'delivered' | 'failed' | 'gave_up';

/** Metrics that go nowhere. */
export const NO_METRICS: Metrics = {
  jobRun: () => undefined,
  publishOutcome: () => undefined,
  providerCall: () => undefined,
  creditsSpent: () => undefined,
  toolCall: () => undefined,
  chatInteraction: () => undefined,
  webhookAttempt: () => undefined,
  webhookDelivered: () => undefined,
};
