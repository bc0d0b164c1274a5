import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Collections } from '../../core/db/collections.js';
import type { Metrics } from '../../core/ops/metrics.js';
import { deliverEventHandle } from '../../core/events/relay.js';

/** The prom-client registry behind `/metrics`: core's Metrics port, the HTTP histogram and the exposition. */
export interface MetricsRegistry extends Metrics {
  /** One answered HTTP request, by the router's route pattern (never the raw path). */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** The text exposition and its content type. */
  exposition(): Promise<{ contentType: string; text: string }>;
}

/** What the gauges read at each scrape: the outbox and due tasks, and a database ping. */
export interface MetricsSources {
  db: Pick<Collections, 'outbox' | 'dueTasks' | 'webhookDeliveries'>;
  ping(): Promise<void>;
}

/** Seconds: from a fast route to a slow upload or a generation. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Seconds from an event to its webhook's delivery: from the first attempt to a day of retries. */
const WEBHOOK_LATENCY_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 24 * 3600];

/** A registry of its own per process (never prom-client's global one), so two servers in one test never mix. */
export function createMetricsRegistry(sources: MetricsSources): MetricsRegistry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });

  const http = new Histogram({
    name: 'postdeck_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, with their latency',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const tools = counter('postdeck_mcp_tool_calls_total', 'MCP tool calls by tool and outcome', ['tool', 'outcome']);
  const chat = counter('postdeck_chat_interactions_total', 'Chat platform requests by platform and outcome', [
    'platform',
    'outcome',
  ]);
  const jobs = counter('postdeck_jobs_total', 'Jobs and due tasks run, by name and end state', ['name', 'state']);
  const publish = counter('postdeck_publish_outcomes_total', 'Posts that left PUBLISHING, by network and outcome', [
    'provider',
    'outcome',
  ]);
  const providers = counter(
    'postdeck_provider_requests_total',
    'HTTP exchanges with TikTok, Instagram and OpenAI by endpoint and status (429s and retried attempts included)',
    ['provider', 'endpoint', 'status'],
  );
  const credits = counter('postdeck_credits_spent_total', 'AI credits spent, by pool', ['pool']);
  const webhookAttempts = counter(
    'postdeck_webhook_attempts_total',
    'Webhook delivery attempts by event type, outcome (delivered, failed and retried, gave_up) and status class',
    ['event', 'outcome', 'status_class'],
  );
  const webhookLatency = new Histogram({
    name: 'postdeck_webhook_delivery_latency_seconds',
    help: 'From an event to its webhook delivered (retries included), by event type',
    labelNames: ['event'] as const,
    buckets: WEBHOOK_LATENCY_BUCKETS,
    registers: [registry],
  });

  new Gauge({
    name: 'postdeck_outbox_backlog',
    help: 'Outbox events whose delivery is not enqueued yet (the relay sweep picks them up; NaN: no database)',
    registers: [registry],
    async collect() {
      this.set(await orNaN(() => sources.db.outbox.countDocuments({ dispatched: false })));
    },
  });
  new Gauge({
    name: 'postdeck_outbox_delivery_lag_seconds',
    help: 'How long the oldest open event delivery has been due (0 when none waits)',
    registers: [registry],
    async collect() {
      const lag = orNaN(async () => {
        const oldest = await sources.db.dueTasks.findOne(
          { name: deliverEventHandle.name, done: false, runAt: { $lte: new Date() } },
          { sort: { runAt: 1 }, projection: { runAt: 1 } },
        );
        return oldest ? Math.max(0, (Date.now() - oldest.runAt.getTime()) / 1000) : 0;
      });
      this.set(await lag);
    },
  });
  new Gauge({
    name: 'postdeck_webhook_deliveries_pending',
    help: 'Webhook deliveries not delivered yet and still retried (NaN: no database)',
    registers: [registry],
    async collect() {
      this.set(await orNaN(() => sources.db.webhookDeliveries.countDocuments({ state: 'pending' })));
    },
  });
  new Gauge({
    name: 'postdeck_database_round_trip_seconds',
    help: 'A ping to the database at scrape time, in seconds (NaN when it failed)',
    registers: [registry],
    async collect() {
      const start = process.hrtime.bigint();
      this.set(await orNaN(async () => (await sources.ping(), Number(process.hrtime.bigint() - start) / 1e9)));
    },
  });

  return {
    httpRequest: (method, route, status, seconds) => http.observe({ method, route, status: String(status) }, seconds),
    toolCall: (tool, outcome) => tools.inc({ tool, outcome }),
    chatInteraction: (platform, outcome) => chat.inc({ platform, outcome }),
    jobRun: (name, state) => jobs.inc({ name, state }),
    publishOutcome: (provider, outcome) => publish.inc({ provider, outcome }),
    providerCall: (provider, endpoint, status) => providers.inc({ provider, endpoint, status: String(status) }),
    creditsSpent: (pool, amount) => credits.inc({ pool }, amount),
    webhookAttempt: (event, outcome, statusClass) => webhookAttempts.inc({ event, outcome, status_class: statusClass }),
    webhookDelivered: (event, seconds) => webhookLatency.observe({ event }, Math.max(0, seconds)),
    async exposition() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}

/** A gauge's reading, NaN when the database cannot answer: the rest of the scrape still works then. */
async function orNaN(read: () => Promise<number>): Promise<number> {
  try {
    return await read();
  } catch {
    return Number.NaN;
  }
}
