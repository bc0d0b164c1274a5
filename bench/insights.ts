/**
 * Insights collection (npm run bench:insights; builds dist/ first): 1,000 published posts over 100 accounts
 * (BENCH_POSTS_PER_ACCOUNT, default 10) collected by one worker process through the TikTok emulator, for
 * BENCH_ROUNDS hourly rounds (default 2). Time is compressed: between rounds every post is aged one hour, the
 * emulator's post clock moved on and the schedule's inputs (publishedAt, nextDueAt, the accounts' dueAt) moved
 * back, and the planner is run at once instead of waiting its minute. Printed: TikTok video-query calls per round (an hour of
 * the first 48 h) against the ideal ceil(posts/20) per account, the ratio (goal ≤ 1.1x), the database time per
 * snapshot (the runs' own database work, from the worker's log), the planner's pass over every account;
 * and the publishing latency of 100 posts on 100 other accounts alone, then with round 1 of the collection due
 * at the same moment (no slower publishing is the goal).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { planCollection } from '../src/core/insights/collect-job.js';
import { openPostInsight } from '../src/core/insights/open-insight.js';
import { publicUrlOf } from '../src/core/media/view.js';
import type { PlatformDoc } from '../src/core/platforms/documents.js';
import { withTikTokToken } from '../src/core/providers/tiktok/connect/token-access.js';
import type { PostDoc } from '../src/core/posts/documents.js';
import { initPhotoPost } from '../src/core/providers/tiktok/publish.js';
import { benchWorkDir, openBenchDatabase, startCluster, type Cluster } from './support/cluster.js';
import { readEmulator, waitUntilSettled } from './support/observe.js';
import { workerRunning } from './support/posts-phase.js';
import { BENCH_SETTINGS, insertPostsDirectly, planPosts, seedTenant, type Tenant } from './support/seed.js';
import { printSummary } from './support/summary.js';
import { line, mapLimit, ms, percentile } from './support/util.js';
import { tiktokHttpOf } from '../src/core/providers/tiktok/http-of.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 100);
const PER_ACCOUNT = Number(process.env.BENCH_POSTS_PER_ACCOUNT ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const HOUR_MS = 3_600_000;
const GOAL_RATIO = 1.1;
const FAR = new Date('2100-01-01T00:00:00Z');

async function main(): Promise<void> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  const work = benchWorkDir('insights');
  const database = await openBenchDatabase(work.dir);
  // Info logs: each collection run logs its report (calls, snapshots, time in TikTok and in all).
  const cluster = await startCluster({ database, workDir: work.dir, pollIntervalMs: 2000, env: { LOG_LEVEL: 'info' } });
  try {
    const tenant = await seedTenant(cluster, 2 * ACCOUNTS);
    const collected = tenant.platforms.slice(0, ACCOUNTS);
    const publishing: Tenant = { ...tenant, platforms: tenant.platforms.slice(ACCOUNTS) };
    // Collection off everywhere while seeding and for the baseline; the publishing accounts stay off throughout.
    await holdCollection(
      cluster,
      tenant.platforms.map((p) => p.platformId),
      FAR,
    );
    const postIds = await publishedPosts(cluster, tenant, collected);
    line('database', database.kind);
    line('collected posts / accounts', `${postIds.length} / ${collected.length}`);
    cluster.startWorker('worker-1');
    await workerRunning(cluster);

    const alone = await publishingLatency(cluster, publishing, () => Promise.resolve());
    line('publishing alone', summary(alone));

    await holdCollection(
      cluster,
      collected.map((p) => p.platformId),
      null,
    );
    const rounds: Round[] = [];
    let together: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      if (round > 0) await age(cluster, postIds, HOUR_MS);
      if (round === 1) {
        // This round falls due together with the publishing load.
        together = await publishingLatency(cluster, publishing, () => collectRound(cluster, postIds, round, rounds));
      } else {
        await collectRound(cluster, postIds, round, rounds);
      }
    }
    line('publishing with collection', summary(together));

    const ideal = collected.length * Math.ceil(PER_ACCOUNT / 20);
    for (const round of rounds) {
      line(
        `round ${round.n} (one hour of the schedule)`,
        `${round.calls} video-query calls (ideal ${ideal}), ${round.snapshots} snapshots, planner ${ms(round.plannerMs)}, done in ${ms(round.ms)}`,
      );
    }
    const calls = rounds.reduce((sum, r) => sum + r.calls, 0) / rounds.length;
    const ratio = calls / ideal;
    const runs = collectionRuns(cluster);
    const snapshots = runs.reduce((sum, r) => sum + r.snapshots, 0);
    const dbMs = runs.reduce((sum, r) => sum + r.dbMs, 0);
    const tiktokMs = runs.reduce((sum, r) => sum + r.providerMs, 0);
    line('TikTok video-query calls per hour', `${calls.toFixed(1)} (ideal ${ideal}): ${ratio.toFixed(2)}x the ideal`);
    line('collection runs / snapshots', `${runs.length} / ${snapshots}`);
    line(
      'database time per snapshot',
      `${ms(dbMs / Math.max(1, snapshots))} (TikTok ${ms(tiktokMs / Math.max(1, snapshots))} per snapshot)`,
    );
    const p99Ratio = percentile(together, 99) / percentile(alone, 99);
    line('publishing p99 with / without collection', `${p99Ratio.toFixed(2)}x`);
    printSummary('insights', {
      calls_per_hour: calls,
      ideal_calls_per_hour: ideal,
      calls_ratio: ratio,
      db_ms_per_snapshot: dbMs / Math.max(1, snapshots),
      publish_p50_alone_ms: percentile(alone, 50),
      publish_p99_alone_ms: percentile(alone, 99),
      publish_p50_with_ms: percentile(together, 50),
      publish_p99_with_ms: percentile(together, 99),
    });
    const pass = ratio <= GOAL_RATIO && rounds.every((r) => r.snapshots === postIds.length);
    line(`goal ≤ ${GOAL_RATIO}x the ideal calls, every snapshot taken`, pass ? 'PASS' : 'FAIL');
    if (!pass) process.exitCode = 1;
  } finally {
    await cluster.stop();
    await database.stop();
    work.remove();
  }
}

interface Round {
  n: number;
  calls: number;
  snapshots: number;
  plannerMs: number;
  ms: number;
}

/** Sets (or with null clears) a backoff on the accounts' collection: the planner and the consumer leave them be. */
async function holdCollection(cluster: Cluster, platformIds: string[], until: Date | null): Promise<void> {
  for (const platformId of platformIds) {
    await cluster.db.insightCollectors.updateOne(
      { _id: platformId },
      { $set: { backoffUntil: until, queuedAt: null, failures: 0 }, $setOnInsert: { totalsAt: null } },
      { upsert: true },
    );
  }
}

/**
 * PER_ACCOUNT public posts on each account at TikTok (one inbox photo posted that many times from the app) and
 * their PUBLISHED posts with insight records here, due for their first snapshot now.
 */
async function publishedPosts(cluster: Cluster, tenant: Tenant, accounts: Tenant['platforms']): Promise<string[]> {
  const { deps } = cluster.core;
  const media = (await cluster.db.media.findOne({ _id: tenant.mediaId }))!;
  const url = publicUrlOf(media, deps.media.publicBaseUrl);
  const lists = await mapLimit(accounts, 8, async ({ platformId }) => {
    const platform = (await cluster.db.platforms.findOne({ _id: platformId })) as PlatformDoc;
    const { publishId } = await withTikTokToken(deps, platform, (token) =>
      initPhotoPost(tiktokHttpOf(deps), token, {
        postMode: 'MEDIA_UPLOAD',
        postInfo: { title: 'bench' },
        photoImages: [url],
        photoCoverIndex: 0,
      }),
    );
    while (cluster.emulator.control.publishes.get(publishId)?.status !== 'SEND_TO_USER_INBOX') await sleep(100);
    const answer = await fetch(`${cluster.emulator.url}/__control/posts/${publishId}/user-posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ postCount: PER_ACCOUNT }),
    });
    const { postIds } = (await answer.json()) as { postIds: string[] };
    const now = new Date();
    const posts: PostDoc[] = postIds.map((releaseId) => ({
      _id: randomUUID(),
      workspaceId: tenant.scope.workspaceId,
      accountId: tenant.scope.accountId,
      groupId: randomUUID(),
      parentPostId: null,
      platformId,
      content: 'Bench insights',
      settings: { ...BENCH_SETTINGS },
      mediaIds: [tenant.mediaId],
      state: 'PUBLISHED',
      scheduledFor: null,
      delayInMinutes: null,
      dueAt: now,
      releaseId,
      releaseUrl: null,
      errorText: null,
      capSpend: null,
      createdAt: now,
      updatedAt: now,
    }));
    await cluster.db.posts.insertMany(posts);
    for (const post of posts) await openPostInsight(deps, post, now);
    return posts.map((post) => post._id);
  });
  return lists.flat();
}

/** One hour of the schedule for every post (the emulator's post clock on, the schedule's inputs back). */
async function age(cluster: Cluster, postIds: string[], byMs: number): Promise<void> {
  cluster.emulator.control.postClockOffsetMs += byMs;
  const records = await cluster.db.postInsights.find({ _id: { $in: postIds } }).toArray();
  await mapLimit(records, 8, (record) =>
    cluster.db.postInsights.updateOne(
      { _id: record._id },
      {
        $set: {
          publishedAt: new Date(record.publishedAt.getTime() - byMs),
          nextDueAt: new Date(record.nextDueAt!.getTime() - byMs),
        },
      },
    ),
  );
  // Then the accounts' next due times (left by their last runs), which make the planner queue a run: moved
  // first, a planner pass in between would queue runs that find only the posts aged so far.
  const states = await cluster.db.insightCollectors.find({ dueAt: { $ne: null } }).toArray();
  await mapLimit(states, 8, (state) =>
    cluster.db.insightCollectors.updateOne(
      { _id: state._id },
      { $set: { dueAt: new Date(state.dueAt!.getTime() - byMs) } },
    ),
  );
}

/** Runs the planner now and waits until every post has its snapshot of this round. */
async function collectRound(cluster: Cluster, postIds: string[], n: number, rounds: Round[]): Promise<void> {
  const calls = () => cluster.emulator.control.apiRequests.get('POST /v2/video/query/') ?? 0;
  const before = calls();
  const started = performance.now();
  await planCollection(cluster.core.deps);
  const plannerMs = performance.now() - started;
  const want = postIds.length * (n + 1);
  let snapshots = 0;
  for (;;) {
    snapshots = await cluster.db.postSnapshots.countDocuments({});
    if (snapshots >= want) break;
    await sleep(500);
  }
  // Runs end with a write after their last snapshot: wait for every account to settle before counting.
  while ((await cluster.db.insightCollectors.countDocuments({ queuedAt: { $ne: null } })) > 0) await sleep(200);
  rounds.push({
    n,
    calls: calls() - before,
    snapshots: snapshots - postIds.length * n,
    plannerMs,
    ms: performance.now() - started,
  });
}

/** Publishes one post on each publishing account, due over 30 s from a few seconds on; latency = init received − due. */
async function publishingLatency(cluster: Cluster, tenant: Tenant, alongside: () => Promise<void>): Promise<number[]> {
  const windowStart = new Date(Date.now() + 8_000);
  const posts = await insertPostsDirectly(cluster, tenant, planPosts(tenant, 1, windowStart, 30_000));
  await sleep(Math.max(0, windowStart.getTime() - Date.now()));
  const [settled] = await Promise.all([
    waitUntilSettled(cluster, posts, { quietUntil: new Date(windowStart.getTime() + 30_000), timeoutMs: 180_000 }),
    alongside(),
  ]);
  if (!settled.settled) throw new Error('the publishing load did not settle');
  const emulator = await readEmulator(cluster, posts);
  const latencies: number[] = [];
  for (const post of posts) {
    const first = emulator.publishesPerPost.get(post.postId)?.[0];
    if (first) latencies.push(first.initReceivedAtMs - post.scheduledFor.getTime());
  }
  return latencies;
}

function summary(latencies: number[]): string {
  return `${latencies.length} posts, init received − due: p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(Math.max(...latencies))}`;
}

/** The collection runs the worker logged ('insights collected'). */
function collectionRuns(cluster: Cluster): { snapshots: number; dbMs: number; providerMs: number }[] {
  const text = readFileSync(path.join(cluster.logDir, 'worker-1.log'), 'utf8');
  const runs = [];
  for (const raw of text.split('\n')) {
    if (!raw.includes('insights collected')) continue;
    try {
      const entry = JSON.parse(raw) as { snapshots: number; dbMs: number; providerMs: number };
      runs.push({ snapshots: entry.snapshots, dbMs: entry.dbMs, providerMs: entry.providerMs });
    } catch {
      // a line cut by the log's end
    }
  }
  return runs;
}

await main();
