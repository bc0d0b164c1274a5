import type { PromMetrics } from 'prom2javascript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_DEFINITIONS } from '../../src/app/jobs.js';
import type { CoreDeps } from '../../src/core/context.js';
import { domainEvent, relayEvents } from '../../src/core/events/relay.js';
import { createJobRunner, type JobRunner } from '../../src/core/jobs/job-runner.js';
import { sendDelivery } from '../../src/core/webhooks/send-job.js';
import { buildTenant } from '../support/factories.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { parseExposition, sampleValue, withMetrics } from '../support/metrics.js';
import { call, type Tenant } from '../support/posts.js';
import { startReceiver, waitUntil } from '../../bench/support/webhook-receiver.js';

// /metrics after known deliveries: attempts by event, outcome and status class, the latency from event to
// delivered, and the pending backlog. The worker runs with the metered deps, as a production worker does.
let database: TestDatabase;
let deps: CoreDeps;
let runner: JobRunner;
let server: TestServer;
let tenant: Tenant;
const receiver = await startReceiver();
beforeAll(async () => {
  database = await openTestDatabase({ webhooks: { allowPrivate: true, retryBaseMs: 200 } });
  const metered = withMetrics(database);
  const { jobs: _unmetered, ...base } = metered.t.deps;
  runner = createJobRunner({
    db: database.db,
    deps: base,
    definitions: JOB_DEFINITIONS,
    pollIntervalMs: 100,
    concurrency: 5,
  });
  deps = {
    ...base,
    jobs: {
      enqueue: (definition, data, when) => runner.enqueue(definition, data, when),
      afterPublishing: (work) => runner.afterPublishing(work),
    },
  };
  server = await startTestServer(
    { ...database, deps },
    { app: { metrics: { registry: metered.registry, token: undefined } } },
  );
  await runner.startProcessing();
  tenant = await buildTenant(deps);
});
afterAll(async () => {
  await runner.stop(5_000);
  await server.stop();
  await receiver.close();
  await database.close();
});

async function scrape(): Promise<PromMetrics> {
  const response = await server.request('/metrics');
  expect(response.status).toBe(200);
  return await parseExposition(await response.text());
}

async function register(path: string, events: string[], failFirst: number): Promise<string> {
  const answer = await call(server, tenant.apiKey, 'POST', '/webhooks', { url: `${receiver.url}${path}`, events });
  expect(answer.status, answer.text).toBe(201);
  receiver.expect(path, answer.body.secret as string, failFirst);
  return answer.body.id as string;
}

const attempts = (families: PromMetrics, event: string, outcome: string, statusClass: string) =>
  sampleValue(families, 'postdeck_webhook_attempts_total', { event, outcome, status_class: statusClass });

describe('webhook delivery metrics', { timeout: 120_000 }, () => {
  it('counts each attempt by event, outcome and status class, and the latency of each delivery', async () => {
    await register('/flaky', ['post.created', 'post.published'], 1);
    const at = new Date();
    const subject = {
      workspaceId: tenant.workspaceId,
      subjectId: 'post-metrics-1',
      actor: { type: 'system' as const },
    };
    await relayEvents(deps, [
      domainEvent('draft.created', subject, at),
      domainEvent('post.published', subject, new Date(at.getTime() + 1)),
    ]);
    // Each event fails once (500), then is delivered (200).
    await waitUntil(async () => {
      const families = await scrape();
      return (
        attempts(families, 'post.created', 'delivered', '2xx') === 1 &&
        attempts(families, 'post.published', 'delivered', '2xx') === 1
      );
    }, 'both events were delivered');
    const families = await scrape();
    for (const event of ['post.created', 'post.published']) {
      expect(attempts(families, event, 'failed', '5xx')).toBe(1);
      expect(attempts(families, event, 'gave_up', '5xx')).toBe(0);
      const latency = { event };
      expect(sampleValue(families, 'postdeck_webhook_delivery_latency_seconds', latency)).toBe(1);
    }
    expect(receiver.at('/flaky')).toHaveLength(4);
    expect(sampleValue(families, 'postdeck_webhook_deliveries_pending', {})).toBe(0);
  });

  it('counts a delivery past its retry window as given up, and the pending backlog until then', async () => {
    const endpointId = await register('/down', ['post.failed'], 1_000);
    const dayAgo = new Date(Date.now() - 25 * 3_600_000);
    await deps.db.webhookDeliveries.insertOne({
      _id: 'msg_metrics-gives-up',
      workspaceId: tenant.workspaceId,
      endpointId,
      eventId: 'post-metrics-2:post.failed',
      type: 'post.failed',
      subjectId: 'post-metrics-2',
      eventAt: dayAgo,
      body: JSON.stringify({ type: 'post.failed', timestamp: dayAgo.toISOString(), data: {} }),
      state: 'pending',
      attempts: 0,
      history: [],
      nextAttemptAt: new Date(),
      windowStart: dayAgo,
      createdAt: dayAgo,
    });
    expect(sampleValue(await scrape(), 'postdeck_webhook_deliveries_pending', {})).toBe(1);
    await sendDelivery(deps, 'msg_metrics-gives-up', 1);
    const families = await scrape();
    expect(attempts(families, 'post.failed', 'gave_up', '5xx')).toBe(1);
    expect(attempts(families, 'post.failed', 'failed', '5xx')).toBe(0);
    expect(sampleValue(families, 'postdeck_webhook_delivery_latency_seconds', { event: 'post.failed' })).toBe(0);
    expect(sampleValue(families, 'postdeck_webhook_deliveries_pending', {})).toBe(0);
  });
});
