/**
 * Healthy webhooks and chat cards while other receivers drip (npm run bench:slow-receivers; builds dist/).
 * One API process and one worker on the embedded database; TikTok, Slack and Discord emulated here;
 * private webhook addresses allowed (every receiver is on loopback).
 * - Baseline, same run: BENCH_DRAFTS drafts (default 8), one every BENCH_DRAFT_GAP_MS (default 4000),
 *   made through REST by a workspace linked to Slack and Discord, with a healthy endpoint on 127.0.0.1
 *   for post.created. Nothing drips.
 * - Drip: three other workspaces, four endpoints each on 127.0.0.2 (12: three never complete their
 *   status, one answers 200 and drips its body forever), each sent a post.published; once the drip's
 *   host has its cap of attempts open, the same drafts again.
 * Per draft: the healthy webhook's arrival and both cards' arrival after the POST answered; per event
 * of the healthy workspace: outbox lag (its last consumer receipt minus the event's time).
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { domainEvent, relayEvents } from '../src/core/events/relay.js';
import { ATTEMPTS_PER_HOST } from '../src/core/webhooks/send-slots.js';
import { startDripReceiver } from '../test/support/drip-receiver.js';
import { benchWorkDir, openBenchDatabase, startCluster, type Cluster } from './support/cluster.js';
import { workerRunning } from './support/posts-phase.js';
import { startChat, type ChatRig } from './support/scale-chat.js';
import { BENCH_SETTINGS, seedTenant, type Tenant } from './support/seed.js';
import { printSummary } from './support/summary.js';
import { line, percentile } from './support/util.js';
import { startReceiver, waitUntil } from './support/webhook-receiver.js';

const DRAFTS = Number(process.env.BENCH_DRAFTS ?? 8);
const DRAFT_GAP_MS = Number(process.env.BENCH_DRAFT_GAP_MS ?? 4_000);
const DRIP_KINDS = ['head', 'head', 'head', 'body'];

interface DraftTimes {
  postId: string;
  webhookMs: number;
  cardsMs: number;
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  const work = benchWorkDir('slow-receivers');
  const database = await openBenchDatabase(work.dir);
  const chat = await startChat();
  const drip = await startDripReceiver();
  const healthy = await startReceiver();
  const cluster = await startCluster({
    database,
    workDir: work.dir,
    pollIntervalMs: 2000,
    env: { ...chat.env, WEBHOOKS_ALLOW_PRIVATE: 'true' },
  });
  try {
    const tenant = await seedTenant(cluster, 1);
    cluster.startWorker('worker-1');
    await workerRunning(cluster);
    await chat.link(cluster.apiUrl, cluster, tenant);
    const secret = await register(cluster, tenant.apiKey, `${healthy.url}/healthy`, 'post.created');
    healthy.expect('/healthy', secret);
    const deliveredIds = () => new Set(healthy.at('/healthy').map((r) => r.verified?.data.postId));

    const baselineStart = new Date();
    const baseline = await drafts(cluster, chat, tenant, 'baseline', deliveredIds);
    const baselineLag = await outboxLags(cluster, tenant, baselineStart);

    const endpoints: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const other = await seedTenant(cluster, 0);
      for (const kind of DRIP_KINDS) {
        await register(cluster, other.apiKey, `${drip.url}/${kind}-${n}-${endpoints.length}`, 'post.published');
        endpoints.push(`${kind}-${n}`);
      }
      const subject = {
        workspaceId: other.scope.workspaceId,
        subjectId: `drip-${n}`,
        actor: { type: 'system' as const },
      };
      await relayEvents(cluster.core.deps, [domainEvent('post.published', subject, new Date())]);
    }
    await waitUntil(() => drip.open() >= ATTEMPTS_PER_HOST, 'the drip host has its cap of attempts open', 300_000);
    const dripStart = new Date();
    const dripping = await drafts(cluster, chat, tenant, 'drip', deliveredIds);
    const dripLag = await outboxLags(cluster, tenant, dripStart);
    const openAtEnd = drip.open();

    const p50 = (values: number[]) => percentile(values, 50);
    const max = (values: number[]) => Math.max(...values);
    const webhook = { base: baseline.map((d) => d.webhookMs), drip: dripping.map((d) => d.webhookMs) };
    const cards = { base: baseline.map((d) => d.cardsMs), drip: dripping.map((d) => d.cardsMs) };
    const ratio = (a: number, b: number) => `${(a / Math.max(b, 1)).toFixed(2)}x`;
    line('database', database.kind);
    line('drafts per phase / gap', `${DRAFTS} / ${DRAFT_GAP_MS} ms`);
    line('dripping endpoints (on 127.0.0.2)', `${endpoints.length} (${DRIP_KINDS.join(', ')} in 3 workspaces)`);
    line('healthy webhook p50 / max: baseline', `${p50(webhook.base)} ms / ${max(webhook.base)} ms`);
    line('healthy webhook p50 / max: while dripping', `${p50(webhook.drip)} ms / ${max(webhook.drip)} ms`);
    line(
      'healthy webhook p50 / max: drip / baseline',
      `${ratio(p50(webhook.drip), p50(webhook.base))} / ${ratio(max(webhook.drip), max(webhook.base))}`,
    );
    line('both cards p50 / max: baseline', `${p50(cards.base)} ms / ${max(cards.base)} ms`);
    line('both cards p50 / max: while dripping', `${p50(cards.drip)} ms / ${max(cards.drip)} ms`);
    line(
      'both cards p50 / max: drip / baseline',
      `${ratio(p50(cards.drip), p50(cards.base))} / ${ratio(max(cards.drip), max(cards.base))}`,
    );
    line(
      'outbox lag p50 / max: baseline',
      `${p50(baselineLag)} ms / ${max(baselineLag)} ms (${baselineLag.length} events)`,
    );
    line('outbox lag p50 / max: while dripping', `${p50(dripLag)} ms / ${max(dripLag)} ms (${dripLag.length} events)`);
    const cardCounts = [...baseline, ...dripping].map((d) => chat.cardsOf(d.postId));
    const cardsPosted = cardCounts.reduce((sum, c) => sum + c.slack + c.discord, 0);
    line('cards posted (Slack + Discord)', `${cardsPosted} (expected ${4 * DRAFTS}: one per draft in each chat)`);
    line(
      'drip requests / open at the end / peak',
      `${drip.drips.length} / ${openAtEnd} / ${drip.peak()} (cap ${ATTEMPTS_PER_HOST})`,
    );
    printSummary('slow-receivers', {
      webhook_p50_ms: p50(webhook.drip),
      webhook_baseline_p50_ms: p50(webhook.base),
      cards_p50_ms: p50(cards.drip),
      cards_baseline_p50_ms: p50(cards.base),
      outbox_lag_p50_ms: p50(dripLag),
    });
    const ok = openAtEnd > 0 && drip.peak() <= ATTEMPTS_PER_HOST && cardsPosted === 4 * DRAFTS;
    console.log(
      `slow-receivers: ${ok ? 'PASS' : 'FAIL: the drip ended before the drafts, went over its cap, or cards are missing or doubled'}`,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    await cluster.stop();
    await drip.close();
    await healthy.close();
    await chat.stop();
    await database.stop();
    work.remove();
  }
}

/** Registers an endpoint through REST; answers its signing secret. */
async function register(cluster: Cluster, apiKey: string, url: string, event: string): Promise<string> {
  const answer = await fetch(`${cluster.apiUrl}/public/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: [event] }),
  });
  if (answer.status !== 201) throw new Error(`POST /webhooks answered ${answer.status}: ${await answer.text()}`);
  return ((await answer.json()) as { secret: string }).secret;
}

/** Makes DRAFTS drafts, one every DRAFT_GAP_MS, and times each one's webhook and cards from its POST's answer. */
async function drafts(
  cluster: Cluster,
  chat: ChatRig,
  tenant: Tenant,
  phase: string,
  deliveredIds: () => Set<string | undefined>,
): Promise<DraftTimes[]> {
  const timings: Promise<DraftTimes>[] = [];
  for (let i = 0; i < DRAFTS; i += 1) {
    const answer = await fetch(`${cluster.apiUrl}/public/v1/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        platformIds: [tenant.platforms[0]!.platformId],
        content: `Slow receivers bench, ${phase} draft ${i}`,
        mode: 'draft',
        mediaIds: [tenant.mediaId],
        settings: BENCH_SETTINGS,
      }),
    });
    if (answer.status !== 201) throw new Error(`POST /posts answered ${answer.status}: ${await answer.text()}`);
    const answeredAt = Date.now();
    const body = (await answer.json()) as { results: { post: { root: { id: string } } }[] };
    const postId = body.results[0]!.post.root.id;
    const arrived = (check: () => boolean) =>
      waitUntil(check, `${phase} draft ${i} arrived`, 300_000).then(() => Date.now() - answeredAt);
    timings.push(
      Promise.all([
        arrived(() => deliveredIds().has(postId)),
        arrived(() => {
          const cards = chat.cardsOf(postId);
          return cards.slack > 0 && cards.discord > 0;
        }),
      ]).then(([webhookMs, cardsMs]) => ({ postId, webhookMs, cardsMs })),
    );
    await sleep(DRAFT_GAP_MS);
  }
  return Promise.all(timings);
}

/** Per event of the tenant's workspace since `since`: its last consumer receipt's time minus the event's. */
async function outboxLags(cluster: Cluster, tenant: Tenant, since: Date): Promise<number[]> {
  const { db } = cluster;
  const events = await db.outbox.find({ workspaceId: tenant.scope.workspaceId, at: { $gte: since } }).toArray();
  const receipts = await db.eventReceipts.find({ at: { $gte: since } }).toArray();
  return events.map((event) => {
    // A consumer's receipt is `<consumer>:<event id>`; consumer names hold no colon.
    const mine = receipts.filter(
      (receipt) => receipt._id.endsWith(`:${event._id}`) && !receipt._id.slice(0, -event._id.length - 1).includes(':'),
    );
    const last = mine.reduce((latest, receipt) => Math.max(latest, receipt.at.getTime()), event.at.getTime());
    return last - event.at.getTime();
  });
}

await main();
