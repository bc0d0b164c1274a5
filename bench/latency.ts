/**
 * Scheduling latency of the publishing engine (npm run bench:latency; builds dist/ first): 1,000
 * photo posts (250 emulated accounts × 4, since TikTok allows 6 inits a minute per token) due within
 * one minute, one worker process (BENCH_WORKERS for more). For each post, latency = the moment its
 * init reached the TikTok emulator (the emulator's own receive time) minus its scheduledFor. The
 * baseline, measured in the same run: the emulator's response time for the same init sent directly
 * from here. Goal: p99 under 1 s. BENCH_POLL_MS sets the workers' JOB_POLL_INTERVAL_MS (default 2000, the project default).
 */
import { execFileSync } from 'node:child_process';
import { emulatorInitTimes } from './support/baseline.js';
import { benchWorkDir, openBenchDatabase, startCluster } from './support/cluster.js';
import { formatStates, readEmulator, waitUntilSettled, type EmulatorView } from './support/observe.js';
import { createDuePosts } from './support/posts-phase.js';
import { seedTenant, type CreatedPost } from './support/seed.js';
import type { Cluster } from './support/cluster.js';
import { printSummary } from './support/summary.js';
import { line, ms, percentile } from './support/util.js';

const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 2000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 250);
const PER_ACCOUNT = 4;
const BASELINE_CALLS = 48;
const GOAL_P99_MS = 1_000;

async function main(): Promise<void> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  const work = benchWorkDir('latency');
  const database = await openBenchDatabase(work.dir);
  const cluster = await startCluster({ database, workDir: work.dir, pollIntervalMs: POLL_MS });
  try {
    const tenant = await seedTenant(cluster, ACCOUNTS);
    const media = await cluster.db.media.findOne({ _id: tenant.mediaId });
    if (!media) throw new Error('the uploaded photo is missing');
    const baseline = await emulatorInitTimes(
      cluster,
      `${cluster.apiUrl}/m/${media._id}/${media.publicToken}`,
      BASELINE_CALLS,
    );
    const { posts, path, windowStart } = await createDuePosts(cluster, tenant, PER_ACCOUNT, {
      concurrency: 4,
      startWorkers: () => {
        for (let i = 0; i < WORKERS; i++) cluster.startWorker(`worker-${i + 1}`);
      },
    });
    const { outcomes, settled } = await waitUntilSettled(cluster, posts, {
      quietUntil: new Date(windowStart.getTime() + 60_000),
      timeoutMs: 4 * 60_000,
    });
    const emulator = await readEmulator(cluster, posts);

    const latencies: number[] = [];
    for (const post of posts) {
      const first = emulator.publishesPerPost.get(post.postId)?.[0];
      if (first) latencies.push(first.initReceivedAtMs - post.scheduledFor.getTime());
    }
    const stages = await latencyStages(cluster, posts, emulator);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const b50 = percentile(baseline, 50);
    const b99 = percentile(baseline, 99);

    line('database', database.kind);
    line(
      'posts / accounts / workers',
      `${posts.length} / ${tenant.platforms.length} / ${WORKERS} (created via ${path})`,
    );
    line('JOB_POLL_INTERVAL_MS', POLL_MS);
    line('posts by state', formatStates(outcomes.byState) + (settled ? '' : ' (timed out)'));
    for (const [text, count] of outcomes.errors) line(`  ERROR ×${count}`, text);
    line(
      'inits that reached the emulator',
      `${latencies.length} of ${posts.length} (duplicates ${emulator.duplicates})`,
    );
    line(
      `baseline: emulator init response (${baseline.length} calls)`,
      `p50 ${ms(b50)}, p99 ${ms(b99)}, max ${ms(Math.max(...baseline))}`,
    );
    line(
      'latency: init received − scheduledFor',
      `p50 ${ms(p50)}, p99 ${ms(p99)}, max ${ms(Math.max(...latencies))}, min ${ms(Math.min(...latencies))}`,
    );
    for (const [stage, values] of Object.entries(stages)) {
      line(
        `  ${stage}`,
        `p50 ${ms(percentile(values, 50))}, p99 ${ms(percentile(values, 99))}, max ${ms(Math.max(...values))}`,
      );
    }
    line('latency / baseline', `p50 ${(p50 / b50).toFixed(1)}x, p99 ${(p99 / b99).toFixed(1)}x`);
    const claimed = stages['due → claimed'] ?? [];
    printSummary('latency', {
      init_p50_ms: p50,
      init_p99_ms: p99,
      init_max_ms: Math.max(...latencies),
      claimed_p50_ms: percentile(claimed, 50),
      claimed_p99_ms: percentile(claimed, 99),
      baseline_p99_ms: b99,
      inits: latencies.length,
      posts: posts.length,
      duplicates: emulator.duplicates,
    });
    const pass = latencies.length === posts.length && p99 < GOAL_P99_MS && emulator.duplicates === 0;
    line('goal p99 < 1 s', pass ? 'PASS' : 'FAIL');
    if (!pass) process.exitCode = 1;
  } finally {
    await cluster.stop();
    await database.stop();
    work.remove();
  }
}

/**
 * Where the time goes, from each post's first attempt: scheduledFor → claimed (the job queue and the
 * claim), claimed → init_sent (checks, creator info, token), init_sent → received by the emulator.
 */
async function latencyStages(cluster: Cluster, posts: CreatedPost[], emulator: EmulatorView) {
  const attempts = await cluster.db.publishAttempts
    .find({ _id: { $in: posts.map((p) => `${p.postId}#1`) } }, { projection: { postId: 1, claimedAt: 1, events: 1 } })
    .toArray();
  const byPost = new Map(attempts.map((a) => [a.postId, a]));
  const stages: Record<string, number[]> = {
    'due → claimed': [],
    'claimed → init_sent': [],
    'init_sent → emulator received': [],
  };
  for (const post of posts) {
    const attempt = byPost.get(post.postId);
    const received = emulator.publishesPerPost.get(post.postId)?.[0]?.initReceivedAtMs;
    const sent = attempt?.events.find((e) => e.what === 'init_sent')?.at.getTime();
    if (!attempt || sent === undefined || received === undefined) continue;
    stages['due → claimed']?.push(attempt.claimedAt.getTime() - post.scheduledFor.getTime());
    stages['claimed → init_sent']?.push(sent - attempt.claimedAt.getTime());
    stages['init_sent → emulator received']?.push(received - sent);
  }
  return stages;
}

await main();
