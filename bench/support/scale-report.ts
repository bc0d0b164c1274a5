import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { deliveryIdOf } from '../../src/core/webhooks/consumer.js';
import { webhookEventOf } from '../../src/core/webhooks/documents.js';
import type { DomainEvent } from '../../src/core/events/documents.js';
import { readAttempts } from './attempts.js';
import type { Cluster } from './cluster.js';
import { readEmulator, waitUntilSettled } from './observe.js';
import { claimersOf } from './scale-both-up.js';
import { outcomeUnknownByKill, type WorkerKill } from './killed-claims.js';
import type { ChatRig } from './scale-chat.js';
import type { LoadOutcome } from './scale-load.js';
import type { Exchange, Traffic } from './scale-traffic.js';
import type { CreatedPost, Tenant } from './seed.js';
import { line, ms, percentile } from './util.js';
import type { Received } from './webhook-receiver.js';

/** Latency of one route in one phase (answers other than a proxy 5xx; repeats included). */
export interface RouteFigures {
  count: number;
  p50: number;
  p99: number;
}

/**
 * Prints requests by route and status; returns the 5xx Postdeck answered or nginx answered outside an
 * outage, and the 4xx (every request of the load is valid: a 4xx is a fault of the bench or the server).
 */
export function printRequests(traffic: Traffic): {
  figures: Map<string, RouteFigures>;
  bad5xx: number;
  invalid: number;
} {
  const routes = new Map<string, Exchange[]>();
  for (const exchange of traffic.exchanges)
    routes.set(exchange.route, [...(routes.get(exchange.route) ?? []), exchange]);
  const figures = new Map<string, RouteFigures>();
  let bad5xx = 0;
  let invalid = 0;
  for (const [route, list] of [...routes].sort(([a], [b]) => a.localeCompare(b))) {
    const byStatus = new Map<string, number>();
    for (const e of list) {
      const key =
        e.status === 0
          ? 'no answer'
          : e.heldKey
            ? `${e.status} key held by a gone process`
            : e.fromProxy
              ? `${e.status} ${traffic.duringOutage(e.at) ? 'proxy (process gone)' : 'PROXY OUTSIDE AN OUTAGE'}`
              : String(e.status);
      byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
      if ((e.status >= 500 && !e.fromProxy) || (e.fromProxy && !traffic.duringOutage(e.at))) bad5xx++;
      if (e.status >= 400 && e.status < 500 && !e.heldKey) invalid++;
    }
    const answered = list.filter((e) => e.status > 0 && !e.fromProxy && !e.heldKey).map((e) => e.ms);
    const retries = list.filter((e) => e.retry).length;
    const statuses = [...byStatus].map(([status, n]) => `${status}: ${n}`).join(', ');
    line(`  ${route}`, `${list.length} (${statuses}; ${retries} retries)`);
    figures.set(route, { count: answered.length, p50: percentile(answered, 50), p99: percentile(answered, 99) });
  }
  return { figures, bad5xx, invalid };
}

/** Prints p50/p99 per route of both phases and the ratio scale-out / one process. */
export function printComparison(one: Map<string, RouteFigures>, two: Map<string, RouteFigures>): void {
  console.log('\n== p50 / p99 per route: one API process vs two (with the restarts) ==');
  for (const [route, base] of one) {
    const other = two.get(route);
    if (!other) continue;
    line(
      `  ${route}`,
      `${ms(base.p50)} / ${ms(base.p99)}  vs  ${ms(other.p50)} / ${ms(other.p99)}  ` +
        `(${(other.p50 / base.p50).toFixed(2)}x / ${(other.p99 / base.p99).toFixed(2)}x)`,
    );
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface Settings {
  settleTimeoutMs: number;
  webhookEndpointId: string;
  webhookPath: string;
  received: () => Received[];
  /** Whether two worker processes ran side by side (phase two). */
  twoWorkers: boolean;
  /** Posts scheduled once both workers were seen up (phase two): both must have claimed some. */
  bothUp: readonly CreatedPost[];
  chat: ChatRig;
  /** The worker SIGKILLed under the load, if one was. */
  workerKill?: WorkerKill | undefined;
}

/**
 * Waits for the work the load left to settle and checks the outcome: posts published exactly once, one
 * card per draft in each chat channel,
 * every webhook event delivered (verified) at least once, no job stuck, both workers working. Prints
 * each figure; returns the failed checks.
 */
export async function checkOutcome(cluster: Cluster, tenant: Tenant, outcome: LoadOutcome, settings: Settings) {
  const problems: string[] = [];
  const toPublish = [...outcome.scheduled, ...outcome.approved];
  const { outcomes, settled } = await waitUntilSettled(cluster, toPublish, {
    quietUntil: new Date(),
    timeoutMs: settings.settleTimeoutMs,
  });
  if (!settled) problems.push('scheduled posts still QUEUE/PUBLISHING');
  const emulator = await readEmulator(cluster, toPublish);
  const published = outcomes.docs.filter((d) => d.state === 'PUBLISHED');
  const twice = published.filter((d) => emulator.postedPerPost.get(d._id)?.length !== 1).length;
  line(
    'posts to publish: scheduled + approved in chat',
    `${outcome.scheduled.length} + ${outcome.approved.length}, ${published.length} PUBLISHED`,
  );
  for (const [text, n] of outcomes.errors) line(`  ERROR ×${n}`, text);
  for (const doc of outcomes.docs.filter((d) => d.state === 'DRAFT'))
    line(`  approved, still DRAFT ${doc._id}`, settings.chat.notesOn(doc._id).slice(0, 600));
  line('published posts not at TikTok exactly once', twice);
  line('posts at TikTok twice', emulator.duplicates);
  // A post published again after a publish that created nothing has several; the report names them.
  const several = [...emulator.publishesPerPost]
    .filter(([, publishes]) => publishes.length > 1)
    .map(([postId, publishes]) => `${postId}: ${publishes.map((p) => `${p.status} ${p.failReason ?? ''}`).join(', ')}`);
  for (const each of several) line('  publishes of one post', each);
  const killedMidPublish = await outcomeUnknownByKill(cluster, outcomes, settings.workerKill);
  line('  of the ERRORs: the SIGKILLed worker had sent the init', killedMidPublish.size);
  if (published.length + killedMidPublish.size < toPublish.length) problems.push('posts to publish not all PUBLISHED');

  const cards = await waitFor(settings.settleTimeoutMs, () => {
    const counts = outcome.drafts.map((id) => settings.chat.cardsOf(id));
    return Promise.resolve({ done: counts.every((c) => c.slack > 0 && c.discord > 0), counts });
  });
  const notOnce = (key: 'slack' | 'discord') => cards.counts.filter((c) => c[key] !== 1).length;
  line(
    'drafts / cards not exactly once in Slack / Discord',
    `${outcome.drafts.length} / ${notOnce('slack')} / ${notOnce('discord')}`,
  );
  if (notOnce('slack') + notOnce('discord') > 0) problems.push('a draft without exactly one card per channel');
  if (twice > 0 || emulator.duplicates > 0 || emulator.strays.length > 0)
    problems.push(
      `a post not published exactly once (${twice} published not once, ${emulator.duplicates} twice, ` +
        `${emulator.strays.length} untracked: ${emulator.strays.map((stray) => JSON.stringify(stray.request).slice(0, 120)).join('; ')}; ` +
        `several publishes: ${several.join('; ')})`,
    );

  const jobs = await waitFor(settings.settleTimeoutMs, async () => {
    const docs = await cluster.db.generationJobs.find({ _id: { $in: outcome.generationJobs } }).toArray();
    return { done: docs.every((d) => d.status === 'DONE' || d.status === 'FAILED'), docs };
  });
  const failedJobs = jobs.docs.filter((d) => d.status === 'FAILED').length;
  line('generation jobs', `${outcome.generationJobs.length} (${failedJobs} FAILED)`);
  if (!jobs.done || failedJobs > 0) problems.push('generation jobs not all DONE');

  const webhooks = await waitFor(settings.settleTimeoutMs, async () => {
    const expected = await expectedDeliveries(cluster, tenant, settings.webhookEndpointId);
    const arrived = new Set(
      settings
        .received()
        .filter((r) => r.path === settings.webhookPath && r.verified)
        .map((r) => r.id),
    );
    const missing = [...expected.keys()].filter((id) => !arrived.has(id));
    return { done: missing.length === 0, expected, missing };
  });
  const all = settings.received().filter((r) => r.path === settings.webhookPath);
  const unverified = all.filter((r) => !r.verified).length;
  const byType = new Map<string, number>();
  for (const type of webhooks.expected.values()) byType.set(type, (byType.get(type) ?? 0) + 1);
  line(
    'webhook events in the database',
    `${webhooks.expected.size} (${[...byType].map(([t, n]) => `${t} ${n}`).join(', ')})`,
  );
  line('webhook requests received / distinct', `${all.length} / ${new Set(all.map((r) => r.id)).size}`);
  line('webhook events lost / bad signatures', `${webhooks.missing.length} / ${unverified}`);
  for (const id of webhooks.missing.slice(0, 5)) {
    const delivery = await cluster.db.webhookDeliveries.findOne({ _id: id });
    const state = delivery
      ? `delivery ${delivery.state}, ${delivery.attempts} attempts, next ${delivery.nextAttemptAt?.toISOString() ?? 'none'}`
      : 'no delivery stored';
    line(`  lost ${webhooks.expected.get(id)} ${id}`, `${state}; subject ${delivery?.subjectId ?? '?'}`);
  }
  if (webhooks.missing.length > 0) problems.push(`${webhooks.missing.length} webhook events never arrived`);
  if (unverified > 0) problems.push(`${unverified} webhook requests failed verification`);

  const stuck = await waitFor(settings.settleTimeoutMs, () => stuckJobs(cluster));
  line('jobs stuck (due tasks / Agenda overdue / Agenda locked past lifetime)', stuck.counts.join(' / '));
  if (!stuck.done) problems.push('a job is stuck');

  const attempts = await readAttempts(cluster, outcome.scheduled);
  const holders = await activeSpans(
    cluster,
    outcome.scheduled.map((p) => p.postId),
  );
  // A holder id is one process run. Two runs of one worker never overlap, so two holders claiming in
  // overlapping spans are both workers; and any three of the four runs (a, b, each restarted once)
  // include both.
  const sideBySide = holders.some((a, i) => holders.some((b, j) => i !== j && a.from <= b.to && b.from <= a.to));
  line('publish attempts by worker process run', [...attempts.byWorker.values()].join(', '));
  if (settings.twoWorkers) {
    const claimers = await claimersOf(cluster, settings.bothUp);
    const both = claimers.size >= 2;
    line(
      'both workers published',
      `${both ? 'yes' : 'no'} (${holders.length} runs, side by side: ${sideBySide}; ` +
        `${settings.bothUp.length} posts offered with both up claimed by ${claimers.size} runs)`,
    );
    if (!both) problems.push('the two workers did not both publish the posts offered while both were up');
  }
  return problems;
}

/** Webhook deliveries the database's events call for: delivery id → event type. */
async function expectedDeliveries(cluster: Cluster, tenant: Tenant, endpointId: string): Promise<Map<string, string>> {
  const workspaceId = tenant.scope.workspaceId;
  const events: DomainEvent[] = [];
  const posts = await cluster.db.posts.find({ workspaceId }, { projection: { events: 1 } }).toArray();
  const jobs = await cluster.db.generationJobs.find({ workspaceId }, { projection: { events: 1 } }).toArray();
  for (const doc of [...posts, ...jobs]) events.push(...(doc.events ?? []));
  const outbox = await cluster.db.outbox.find({ workspaceId }).toArray();
  for (const { _id, ...rest } of outbox) events.push({ id: _id, ...rest });
  const expected = new Map<string, string>();
  for (const event of events) {
    const type = webhookEventOf(event.type);
    if (type) expected.set(deliveryIdOf(endpointId, event.id), type);
  }
  return expected;
}

/** Due tasks overdue by a minute, Agenda jobs overdue by a minute and unlocked, Agenda locks over 10 minutes old. */
async function stuckJobs(cluster: Cluster) {
  const now = Date.now();
  const overdue = new Date(now - 60_000);
  const tasks = await cluster.db.dueTasks.countDocuments({ done: false, runAt: { $lt: overdue } });
  const agenda = cluster.core.database.db.collection('agendaJobs');
  const late = await agenda.countDocuments({ nextRunAt: { $lt: overdue }, lockedAt: null, disabled: { $ne: true } });
  const locked = await agenda.countDocuments({ lockedAt: { $lt: new Date(now - 10 * 60_000) } });
  return { done: tasks + late + locked === 0, counts: [tasks, late, locked] };
}

/** Per worker holder id: the span of time it claimed publish attempts in. */
async function activeSpans(cluster: Cluster, postIds: string[]) {
  const docs = await cluster.db.publishAttempts
    .find({ postId: { $in: postIds } }, { projection: { worker: 1, claimedAt: 1 } })
    .toArray();
  const spans = new Map<string, { from: number; to: number }>();
  for (const doc of docs) {
    const at = doc.claimedAt.getTime();
    const span = spans.get(doc.worker) ?? { from: at, to: at };
    spans.set(doc.worker, { from: Math.min(span.from, at), to: Math.max(span.to, at) });
  }
  return [...spans.values()];
}

/** Repeats `check` every 2 s until it says done or `timeoutMs` passed; its last answer. */
async function waitFor<T extends { done: boolean }>(timeoutMs: number, check: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result.done || Date.now() > deadline) return result;
    await sleep(2_000);
  }
}
