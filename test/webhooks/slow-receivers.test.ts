import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainEvent, relayEvents } from '../../src/core/events/relay.js';
import { ATTEMPTS_PER_HOST } from '../../src/core/webhooks/send-slots.js';
import { sendDelivery } from '../../src/core/webhooks/send-job.js';
import { eventually, linkTeam, runCommand, startSlackWorld, type SlackWorld } from '../bots/slack-support.js';
import { createRestDraft } from '../support/chat-cards.js';
import { startDripReceiver } from '../support/drip-receiver.js';
import { buildTenant } from '../support/factories.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { makeJpeg } from '../support/media.js';
import { call } from '../support/posts.js';
import { connectCreator, startWorld, storeMedia, type PublishingWorld } from '../publishing/support.js';
import { startReceiver } from '../../bench/support/webhook-receiver.js';

// Receivers that never finish answering (issue 32): an attempt ends at its deadline or as soon as the
// status is known, webhook sends run in their own pool, capped per workspace and per receiver host, so
// one workspace's dripping endpoints hold up neither another workspace's deliveries nor chat cards.
// The drip receiver listens on 127.0.0.2, the healthy one on 127.0.0.1 (another receiver host), the
// lone drip of the deadline test on 127.0.0.3: a host of its own, so that test and the fan-out, each
// waiting out 15 s deadlines, run at the same time without taking each other's send slots.
const LONG = { timeout: 300_000 };
const ANA = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };
type Tenant = Awaited<ReturnType<typeof buildTenant>>;

let w: PublishingWorld;
let s: SlackWorld;
let drip: Awaited<ReturnType<typeof startDripReceiver>>;
let lone: Awaited<ReturnType<typeof startDripReceiver>>;
let healthy: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  w = await startWorld({ webhooks: { allowPrivate: true, retryBaseMs: 300 } });
  s = await startSlackWorld(w);
  await linkTeam(w, s, ANA);
  await runCommand(s, 'approvals here', ANA);
  drip = await startDripReceiver();
  lone = await startDripReceiver(2_000, '127.0.0.3');
  healthy = await startReceiver();
}, 120_000);
afterAll(async () => {
  await drip?.close();
  await lone?.close();
  await healthy?.close();
  await s?.close();
  await w?.close();
});

async function register(apiKey: string, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const answer = await call(w.server, apiKey, 'POST', '/webhooks', { url, events });
  expect(answer.status).toBe(201);
  return { id: answer.body.id as string, secret: answer.body.secret as string };
}

/** Relays a post.published event of `subjectId` in the tenant's workspace, as publishing would. */
function published(tenant: Tenant, subjectId: string): Promise<void> {
  const subject = { workspaceId: tenant.workspaceId, subjectId, actor: { type: 'system' as const } };
  return relayEvents(w.t.deps, [domainEvent('post.published', subject, new Date())]);
}

describe('slow webhook receivers', () => {
  it('records a refused connection as `connection_refused`, without the address and port', async () => {
    const tenant = await buildTenant(w.t.deps);
    const closed = await startReceiver();
    const url = `${closed.url}/gone`;
    await closed.close();
    const endpoint = await register(tenant.apiKey, url, ['post.published']);
    await published(tenant, 'post-refused');
    const delivery = await eventually(async () => {
      const listed = await call(w.server, tenant.apiKey, 'GET', `/webhooks/${endpoint.id}/deliveries`);
      return (listed.body.deliveries as { error: string | null; attempt: number }[]).find((d) => d.attempt > 0);
    }, 60_000);
    expect(delivery.error).toBe('connection_refused');
    expect(JSON.stringify(delivery)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });

  it.concurrent(
    'ends an attempt whose status never completes at its deadline, as `timeout`, however often bytes come',
    LONG,
    async () => {
      const tenant = await buildTenant(w.t.deps);
      const endpoint = await register(tenant.apiKey, `${lone.url}/head-alone`, ['post.published']);
      const now = new Date();
      await w.t.deps.db.webhookDeliveries.insertOne({
        _id: 'msg_head_alone',
        workspaceId: tenant.workspaceId,
        endpointId: endpoint.id,
        eventId: 'post-head-alone:post.published',
        type: 'post.published',
        subjectId: 'post-head-alone',
        eventAt: now,
        body: '{"type":"post.published","timestamp":"2026-11-29T03:00:00.000Z","data":{}}',
        state: 'pending',
        attempts: 0,
        history: [],
        nextAttemptAt: now,
        windowStart: now,
        createdAt: now,
      });
      await sendDelivery({ ...w.t.deps, webhooks: { allowPrivate: true, retryBaseMs: 60_000 } }, 'msg_head_alone', 1);
      const [seen] = lone.drips.filter((d) => d.path === '/head-alone');
      // Bytes kept coming (an idle timeout would never have fired), yet the attempt ended and closed the socket.
      expect(seen!.dripped).toBeGreaterThanOrEqual(3);
      await eventually(() => lone.drips.find((d) => d.path === '/head-alone')?.closedAt);
      const stored = await w.t.deps.db.webhookDeliveries.findOne({ _id: 'msg_head_alone' });
      expect(stored).toMatchObject({ state: 'pending', attempts: 1 });
      expect(stored!.history).toEqual([{ at: expect.any(Date), statusCode: null, error: 'timeout' }]);
      // The log shows the category, not an error's text, through REST and MCP alike.
      const listed = await call(w.server, tenant.apiKey, 'GET', `/webhooks/${endpoint.id}/deliveries`);
      expect(listed.body.deliveries).toEqual([
        expect.objectContaining({
          error: 'timeout',
          statusCode: null,
          attempts: [expect.objectContaining({ error: 'timeout' })],
        }),
      ]);
      const client = await connectMcpOverHttp(w.server.url, tenant.apiKey);
      try {
        const result = (await client.callTool({
          name: 'list_webhook_deliveries',
          arguments: { id: endpoint.id },
        })) as CallToolResult;
        const text = (result.content[0] as { text: string }).text;
        expect(JSON.parse(text)).toMatchObject({
          deliveries: [{ error: 'timeout', attempts: [{ error: 'timeout' }] }],
        });
      } finally {
        await client.close();
      }
    },
  );

  it.concurrent("delivers another workspace's events and posts chat cards while endpoints drip", LONG, async () => {
    // Two workspaces, three dripping endpoints each: two never complete their status, one answers 200
    // and drips the body forever. Six attempts for the drip's host, more than its cap, so some wait.
    // The long version (more endpoints and drafts, latencies against a run without drip) is
    // bench/slow-receivers.ts.
    const { platform } = await connectCreator(w);
    const media = await storeMedia(w, await makeJpeg(1080, 1920));
    const dripping: { tenant: Tenant; endpoints: string[] }[] = [];
    for (let n = 0; n < 2; n += 1) {
      const tenant = await buildTenant(w.t.deps);
      const endpoints: string[] = [];
      for (const kind of ['head', 'head', 'body']) {
        endpoints.push(
          (await register(tenant.apiKey, `${drip.url}/${kind}-${n}-${endpoints.length}`, ['post.published'])).id,
        );
      }
      dripping.push({ tenant, endpoints });
    }
    const deliveries = dripping.flatMap((d) => d.endpoints);
    expect(deliveries.length).toBeGreaterThan(ATTEMPTS_PER_HOST);
    for (const [n, { tenant }] of dripping.entries()) await published(tenant, `post-drip-${n}`);
    const fanOut = (d: { path: string }) => /^\/(head|body)-\d/.test(d.path);
    await eventually(() => drip.drips.filter((d) => fanOut(d) && d.closedAt === null).length >= 3, 120_000);

    // Meanwhile the tenant with Slack makes a draft: its webhook and its card both arrive.
    const own = await register(w.tenant.apiKey, `${healthy.url}/healthy`, ['post.created']);
    healthy.expect('/healthy', own.secret);
    const postId = await createRestDraft(w, platform._id, 'Card while receivers drip', [media._id]);
    const card = await eventually(
      () =>
        s.slack.state
          .channel(ANA.channelId)
          .find((m) => m.threadTs === null && m.text.includes('Card while receivers drip')),
      180_000,
    );
    const delivered = await eventually(() => healthy.at('/healthy')[0], 180_000);
    // Both came while the drip still held attempts: they did not wait for it to end.
    expect(drip.open()).toBeGreaterThan(0);
    expect(card).toBeTruthy();
    expect(delivered.verified).toMatchObject({ type: 'post.created', data: { postId } });

    // The dripping deliveries wait their turn (at most ATTEMPTS_PER_HOST at once on the drip's host)
    // and each is attempted in the end: a 200 whose body never ends is delivered, the others time out.
    await eventually(async () => {
      const stored = await w.t.deps.db.webhookDeliveries.find({ endpointId: { $in: deliveries } }).toArray();
      return stored.length === deliveries.length && stored.every((d) => d.attempts > 0);
    }, 240_000);
    const stored = await w.t.deps.db.webhookDeliveries.find({ endpointId: { $in: deliveries } }).toArray();
    for (const delivery of stored) {
      const endpointUrl = (await w.t.deps.db.webhookEndpoints.findOne({ _id: delivery.endpointId }))!.url;
      const expected = endpointUrl.includes('/body-')
        ? { statusCode: 200, error: null }
        : { statusCode: null, error: 'timeout' };
      expect(delivery.history[0]).toMatchObject(expected);
    }
    expect(drip.peak(fanOut)).toBeLessThanOrEqual(ATTEMPTS_PER_HOST);
  });
});
