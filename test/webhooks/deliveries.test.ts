import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { relayEvents, domainEvent } from '../../src/core/events/relay.js';
import type { EventType } from '../../src/core/events/documents.js';
import { claimLease } from '../../src/core/db/leases.js';
import { SEND_LEASE_MS, sendDelivery } from '../../src/core/webhooks/send-job.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { buildVideo, call, connectedPlatform, postBody, type Tenant } from '../support/posts.js';
import { startTikTokFixture } from '../support/tiktok.js';
import { startReceiver, waitUntil, type Received } from '../../bench/support/webhook-receiver.js';

// Deliveries end to end: the outbox's events reach a loopback receiver (so private endpoints are allowed
// here), signed, retried with backoff, in order per post, logged and redelivered.
const f = await startTikTokFixture();
const { t, server } = await useTestServer({
  database: { tiktok: f.config, webhooks: { allowPrivate: true, retryBaseMs: 100 } },
});
const receiver = await startReceiver();
afterAll(async () => {
  await receiver.close();
  await f.emulator.stop();
});

let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  a = await buildTenant(t.deps);
  b = await buildTenant(t.deps);
  await t.startWorker();
});

/** Registers `path` of the receiver for `events` in the tenant's workspace; the receiver learns its secret. */
async function register(tenant: Tenant, path: string, events: string[], failFirst = 0): Promise<string> {
  const answer = await call(server, tenant.apiKey, 'POST', '/webhooks', { url: `${receiver.url}${path}`, events });
  expect(answer.status).toBe(201);
  receiver.expect(path, answer.body.secret as string, failFirst);
  return answer.body.id as string;
}

/** Relays an event of `subjectId` as the change that made it would. */
async function happen(tenant: Tenant, type: EventType, subjectId: string, at: Date): Promise<void> {
  await relayEvents(t.deps, [
    domainEvent(type, { workspaceId: tenant.workspaceId, subjectId, actor: { type: 'system' } }, at),
  ]);
}

/** A never-attempted post.published delivery `msg_<name>` of workspace a's endpoint, as the consumer stores it. */
async function pendingDelivery(name: string, endpointId: string): Promise<void> {
  const now = new Date();
  await t.deps.db.webhookDeliveries.insertOne({
    _id: `msg_${name}`,
    workspaceId: a.workspaceId,
    endpointId,
    eventId: `post-${name}:post.published`,
    type: 'post.published',
    subjectId: `post-${name}`,
    eventAt: now,
    body: '{"type":"post.published","timestamp":"2026-11-26T05:00:00.000Z","data":{}}',
    state: 'pending',
    attempts: 0,
    history: [],
    nextAttemptAt: now,
    windowStart: now,
    createdAt: now,
  });
}

/** Whether the standardwebhooks package accepts the request with `secret`, on a receiver whose clock reads `atMs`. */
function verifies(request: Received, secret: string, atMs = Date.now()): boolean {
  vi.useFakeTimers({ toFake: ['Date'], now: atMs });
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

type Delivery = {
  id: string;
  event: string;
  status: string;
  attempt: number;
  statusCode: number | null;
  attempts: { statusCode: number | null }[];
  nextAttemptAt: string | null;
};

async function deliveries(tenant: Tenant, endpointId: string): Promise<Delivery[]> {
  const answer = await call(server, tenant.apiKey, 'GET', `/webhooks/${endpointId}/deliveries`);
  expect(answer.status).toBe(200);
  return answer.body.deliveries as Delivery[];
}

describe('webhook deliveries', () => {
  it("sends a new draft's post.created, signed as Standard Webhooks says", async () => {
    await register(a, '/drafts', ['post.created']);
    const platform = await connectedPlatform(t, f, a);
    const video = await buildVideo(t.deps, a.workspaceId);
    const created = await call(
      server,
      a.apiKey,
      'POST',
      '/posts',
      postBody([platform._id], [video._id], { mode: 'draft' }),
    );
    expect(created.status, created.text).toBe(201);
    await waitUntil(() => receiver.at('/drafts').length === 1, 'the draft was delivered');
    const [request] = receiver.at('/drafts');
    expect(request!.verified).not.toBeNull();
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.id).toMatch(/^msg_/);
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(600);
    const post = await t.deps.db.posts.findOne({ workspaceId: a.workspaceId, parentPostId: null });
    expect(request!.verified).toMatchObject({
      type: 'post.created',
      data: { postId: post!._id, workspaceId: a.workspaceId, provider: 'tiktok' },
    });
    expect(Date.parse(request!.verified!.timestamp)).toBeGreaterThan(0);
  });

  it('retries a receiver failing three times, each event once more after each failure, in order per post, then stops', async () => {
    const endpointId = await register(a, '/flaky', ['post.created', 'post.published'], 3);
    const at = Date.now();
    await happen(a, 'draft.created', 'post-flaky', new Date(at));
    await happen(a, 'post.published', 'post-flaky', new Date(at + 1));
    const settled = async () => {
      const log = await deliveries(a, endpointId);
      return log.length === 2 && log.every((d) => d.status === 'delivered');
    };
    await waitUntil(settled, 'both were delivered');
    const log = await deliveries(a, endpointId);
    expect(log.map((d) => d.event).sort()).toEqual(['post.created', 'post.published']);
    for (const delivery of log) {
      expect(delivery).toMatchObject({ status: 'delivered', attempt: 4, statusCode: 200, nextAttemptAt: null });
      expect(delivery.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 500, 200]);
    }
    // Long past the next backoff step (0.8 s): nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const requests = receiver.at('/flaky');
    expect(requests).toHaveLength(8);
    expect(requests.every((request) => request.verified !== null)).toBe(true);
    const types = requests.map((request) => request.verified!.type);
    expect(types).toEqual([...Array(4).fill('post.created'), ...Array(4).fill('post.published')]);
    for (const id of new Set(requests.map((request) => request.id))) {
      const bodies = new Set(requests.filter((request) => request.id === id).map((request) => request.body));
      expect(bodies.size).toBe(1); // every attempt sends the same message
    }
  });

  it('redelivers a delivery with the same id and body', async () => {
    const endpointId = await register(a, '/again', ['post.failed']);
    await happen(a, 'post.failed', 'post-again', new Date());
    await waitUntil(() => receiver.at('/again').length === 1, 'the first delivery');
    const [delivery] = await deliveries(a, endpointId);
    const answer = await call(server, a.apiKey, 'POST', `/webhooks/${endpointId}/deliveries/${delivery!.id}/redeliver`);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ id: delivery!.id, status: 'pending' });
    await waitUntil(() => receiver.at('/again').length === 2, 'the redelivery');
    const [first, second] = receiver.at('/again');
    expect(second!.id).toBe(first!.id);
    expect(second!.body).toBe(first!.body);
    expect(second!.verified).toMatchObject({ type: 'post.failed' });
    await waitUntil(async () => (await deliveries(a, endpointId))[0]!.attempt === 2, 'the log shows two attempts');
  });

  it("sends an event only to its own workspace's endpoints, and only the events they asked for", async () => {
    await register(a, '/generations', ['generation.done']);
    await register(b, '/theirs', ['generation.done', 'generation.failed']);
    await happen(b, 'generation.failed', 'job-of-b', new Date());
    await happen(a, 'generation.failed', 'job-of-a', new Date());
    await happen(a, 'generation.done', 'job-of-a-done', new Date());
    await waitUntil(() => receiver.at('/generations').length === 1 && receiver.at('/theirs').length === 1, 'both');
    // Once the webhooks consumer has handled all three events, every delivery they make exists.
    const handled = ['job-of-b:generation.failed', 'job-of-a:generation.failed', 'job-of-a-done:generation.done'];
    await waitUntil(
      async () =>
        (await t.deps.db.eventReceipts.countDocuments({ _id: { $in: handled.map((id) => `webhooks:${id}`) } })) === 3,
      'the webhooks consumer handled the three events',
    );
    const made = await t.deps.db.webhookDeliveries
      .find({ eventId: { $in: handled } })
      .project<{ eventId: string; workspaceId: string }>({ eventId: 1, workspaceId: 1 })
      .toArray();
    expect(made.map((d) => [d.workspaceId, d.eventId]).sort()).toEqual(
      [
        [a.workspaceId, 'job-of-a-done:generation.done'],
        [b.workspaceId, 'job-of-b:generation.failed'],
      ].sort(),
    );
    expect(receiver.at('/generations').map((r) => r.verified?.data)).toEqual([
      { workspaceId: a.workspaceId, generationJobId: 'job-of-a-done' },
    ]);
    expect(receiver.at('/theirs').map((r) => r.verified?.data)).toEqual([
      { workspaceId: b.workspaceId, generationJobId: 'job-of-b' },
    ]);
  });

  it('checks the address again at delivery time and refuses a private one there', async () => {
    const endpointId = await register(a, '/rebound', ['post.published']);
    // Registered while private endpoints were allowed; the attempt runs where they are not.
    await pendingDelivery('rebound', endpointId);
    await sendDelivery({ ...t.deps, webhooks: { allowPrivate: false, retryBaseMs: 60_000 } }, 'msg_rebound', 1);
    const stored = await t.deps.db.webhookDeliveries.findOne({ _id: 'msg_rebound' });
    expect(stored).toMatchObject({ state: 'pending', attempts: 1 });
    expect(stored!.history[0]).toMatchObject({
      statusCode: null,
      error: 'address_refused',
    });
    expect(receiver.at('/rebound')).toHaveLength(0);
  });

  it('makes an attempt whose sender died holding it once the hold ends, rather than dropping it', async () => {
    const endpointId = await register(a, '/orphan', ['post.published']);
    await pendingDelivery('orphan', endpointId);
    // A worker claimed attempt 1 and was killed before it could record it.
    expect(await claimLease(t.deps.db, 'webhook:msg_orphan#1', { ttlMs: 1_000 })).not.toBeNull();
    const before = Date.now();
    await sendDelivery(t.deps, 'msg_orphan', 1);
    expect(receiver.at('/orphan')).toHaveLength(0);
    const again = await t.deps.db.dueTasks.findOne({ name: 'webhooks.send', 'data.deliveryId': 'msg_orphan' });
    expect(again).toMatchObject({ data: { deliveryId: 'msg_orphan', attempt: 1 }, done: false });
    expect(again!.runAt.getTime()).toBeGreaterThanOrEqual(before + SEND_LEASE_MS);

    await new Promise((resolve) => setTimeout(resolve, 1_100)); // the dead sender's hold ends
    await sendDelivery(t.deps, 'msg_orphan', 1);
    expect(receiver.at('/orphan')).toHaveLength(1);
    expect(await t.deps.db.webhookDeliveries.findOne({ _id: 'msg_orphan' })).toMatchObject({
      state: 'delivered',
      attempts: 1,
    });
  });

  it('deletes an endpoint with its log; its queued attempts send nothing', async () => {
    const endpointId = await register(a, '/gone', ['post.published'], 100);
    await happen(a, 'post.published', 'post-gone', new Date());
    await waitUntil(() => receiver.at('/gone').length >= 1, 'a first failed attempt');
    expect((await call(server, a.apiKey, 'DELETE', `/webhooks/${endpointId}`)).status).toBe(204);
    const count = receiver.at('/gone').length;
    expect(await t.deps.db.webhookDeliveries.countDocuments({ endpointId })).toBe(0);
    // Several backoff steps (100, 200, 400, 800 ms) pass: at most the attempt in flight arrives.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.at('/gone').length).toBeLessThanOrEqual(count + 1);
    const listed = await call(server, a.apiKey, 'GET', '/webhooks');
    expect((listed.body.webhooks as { id: string }[]).map((w) => w.id)).not.toContain(endpointId);
  });
});

describe('rotated secrets, test events and URL credentials', () => {
  it('signs with both secrets during the overlap, and with the new one only once the clock passes it', async () => {
    const created = await call(server, a.apiKey, 'POST', '/webhooks', {
      url: `${receiver.url}/rotating`,
      events: ['post.published'],
    });
    const endpointId = created.body.id as string;
    const oldSecret = created.body.secret as string;
    const rotated = await call(server, a.apiKey, 'POST', `/webhooks/${endpointId}/rotate-secret`, {
      overlapMinutes: 60,
    });
    const newSecret = rotated.body.secret as string;

    await pendingDelivery('rotating-during', endpointId);
    await sendDelivery(t.deps, 'msg_rotating-during', 1);
    const [during] = receiver.at('/rotating');
    expect(during!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect([verifies(during!, oldSecret), verifies(during!, newSecret)]).toEqual([true, true]);

    // An hour and a minute later, for Postdeck and the receiver alike.
    const later = Date.now() + 61 * 60_000;
    await pendingDelivery('rotating-after', endpointId);
    await sendDelivery({ ...t.deps, now: () => new Date(later) }, 'msg_rotating-after', 1);
    const after = receiver.at('/rotating')[1]!;
    expect(after.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect([verifies(after, oldSecret, later), verifies(after, newSecret, later)]).toEqual([false, true]);
  });

  it('sends a test event through the normal path, signed, and logs it delivered', async () => {
    const endpointId = await register(a, '/tested', ['post.created']);
    const sent = await call(server, a.apiKey, 'POST', `/webhooks/${endpointId}/test`);
    expect(sent.status).toBe(202);
    await waitUntil(() => receiver.at('/tested').length === 1, 'the test event arrived');
    expect(receiver.at('/tested')[0]!.verified).toMatchObject({
      type: 'webhook.test',
      data: { workspaceId: a.workspaceId, endpointId },
    });
    await waitUntil(async () => (await deliveries(a, endpointId))[0]?.status === 'delivered', 'logged delivered');
  });

  it('sends the user name and password of the URL as Basic authorization, though lists mask them', async () => {
    const url = `${receiver.url.replace('http://', 'http://hook-user:hook-pass@')}/with-creds`;
    const created = await call(server, a.apiKey, 'POST', '/webhooks', { url, events: ['post.published'] });
    expect(created.body.url).not.toContain('hook-pass');
    const endpointId = created.body.id as string;
    await pendingDelivery('with-creds', endpointId);
    await sendDelivery(t.deps, 'msg_with-creds', 1);
    const [request] = receiver.at('/with-creds');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from('hook-user:hook-pass').toString('base64')}`);
    const listed = await call(server, a.apiKey, 'GET', '/webhooks');
    expect(listed.text).not.toContain('hook-pass');
  });
});
