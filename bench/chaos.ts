/**
 * The publishing engine under failure, against the TikTok and Instagram emulators and real, spawned
 * Postdeck processes (npm run bench:chaos; builds dist/ first):
 *
 * 1. Crashes: 450 posts (100 TikTok and 50 Instagram accounts × 3) due within one minute, one worker,
 *    killed with SIGKILL at three random moments of that minute and restarted each time. Afterwards
 *    every post must be PUBLISHED or ERROR (with a reason), and neither network may have a post twice.
 * 2. Two workers: 748 posts (125 TikTok and 62 Instagram accounts × 4) due within one minute, two
 *    worker processes: no post twice, and both workers made attempts.
 *
 * Instagram posts are single images and carousels; three Instagram accounts of four get injected faults
 * first (the false failure after a publish, a connection cut after it, spurious read errors).
 * BENCH_CHAOS_CRASH_ACCOUNTS and BENCH_CHAOS_TWO_WORKER_ACCOUNTS ("tiktok,instagram") change the sizes.
 *
 * Prints counts by state, error reasons, publishes per post at each emulator, init requests, Instagram
 * containers and attempts per worker; exits 1 on a duplicate, a post left unsettled, or a worker that
 * did nothing.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { readAttempts } from './support/attempts.js';
import { benchWorkDir, openBenchDatabase, startCluster, type BenchDatabase, type Cluster } from './support/cluster.js';
import { connectInstagramAccounts, injectInstagramFaults } from './support/instagram-seed.js';
import { reportInstagram } from './support/instagram-observe.js';
import { formatStates, readEmulator, waitUntilSettled, type PostOutcomes } from './support/observe.js';
import { createDuePosts } from './support/posts-phase.js';
import { stopProcess, tailOf, type PostdeckProcess } from './support/processes.js';
import { seedTenant, type CreatedPost, type Tenant } from './support/seed.js';
import { line } from './support/util.js';

const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 2000);
const SETTLE_TIMEOUT_MS = Number(process.env.BENCH_SETTLE_TIMEOUT_MS ?? 5 * 60_000);
const KILLS = 3;
const CRASH_ACCOUNTS = accountsFromEnv('BENCH_CHAOS_CRASH_ACCOUNTS', { tiktok: 100, instagram: 50 });
const TWO_WORKER_ACCOUNTS = accountsFromEnv('BENCH_CHAOS_TWO_WORKER_ACCOUNTS', { tiktok: 125, instagram: 62 });

async function main(): Promise<void> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  const work = benchWorkDir('chaos');
  const database = await openBenchDatabase(work.dir);
  let failed = false;
  try {
    line('database', database.kind);
    line('JOB_POLL_INTERVAL_MS', POLL_MS);
    failed = (await crashPhase(database, work.dir)) || failed;
    failed = (await twoWorkerPhase(database, work.dir)) || failed;
  } finally {
    await database.stop();
    work.remove();
  }
  console.log(`\nchaos: ${failed ? 'FAIL' : 'PASS'}`);
  if (failed) process.exitCode = 1;
}

/** Phase 1: one worker, SIGKILLed three times during the due minute and restarted. True when it failed. */
async function crashPhase(database: BenchDatabase, workDir: string): Promise<boolean> {
  const { tiktok, instagram } = CRASH_ACCOUNTS;
  console.log(
    `\n== 1. ${(tiktok + instagram) * 3} posts (${tiktok} TikTok, ${instagram} Instagram accounts × 3) due within one minute, the worker killed with SIGKILL 3 times ==`,
  );
  const cluster = await startCluster({ database, workDir, pollIntervalMs: POLL_MS });
  try {
    const tenant = await seedBothNetworks(cluster, CRASH_ACCOUNTS);
    let worker: PostdeckProcess | undefined;
    const { posts, windowStart } = await createDuePosts(cluster, tenant, 3, {
      concurrency: 4,
      startWorkers: () => (worker = cluster.startWorker('worker')),
    });
    // Kill moments: random within the minute, at least 5 s apart so each restarted worker gets going.
    const kills = randomMoments(KILLS, 2_000, 58_000, 5_000).map((at) => windowStart.getTime() + at);
    let current = worker as PostdeckProcess;
    for (const [i, at] of kills.entries()) {
      await sleep(Math.max(0, at - Date.now()));
      await stopProcess(current, 'SIGKILL');
      const offset = ((Date.now() - windowStart.getTime()) / 1000).toFixed(1);
      const down = 500 + Math.floor(Math.random() * 2_500);
      console.log(`  kill ${i + 1}: SIGKILL at +${offset} s into the minute, restarted ${down} ms later`);
      await sleep(down);
      current = cluster.startWorker('worker');
    }
    return await report(cluster, posts, windowStart, { requireBothWorkers: false });
  } finally {
    await cluster.stop();
  }
}

/** Phase 2: two workers on 500 due posts. True when it failed. */
async function twoWorkerPhase(database: BenchDatabase, workDir: string): Promise<boolean> {
  const { tiktok, instagram } = TWO_WORKER_ACCOUNTS;
  console.log(
    `\n== 2. ${(tiktok + instagram) * 4} posts (${tiktok} TikTok, ${instagram} Instagram accounts × 4) due within one minute, two worker processes ==`,
  );
  const cluster = await startCluster({ database, workDir, pollIntervalMs: POLL_MS });
  try {
    const tenant = await seedBothNetworks(cluster, TWO_WORKER_ACCOUNTS);
    const { posts, windowStart } = await createDuePosts(cluster, tenant, 4, {
      concurrency: 4,
      startWorkers: () => ['worker-a', 'worker-b'].forEach((name) => cluster.startWorker(name)),
    });
    return await report(cluster, posts, windowStart, { requireBothWorkers: true });
  } finally {
    await cluster.stop();
  }
}

/** A workspace with both networks' accounts, faults injected on Instagram's before any post is made. */
async function seedBothNetworks(cluster: Cluster, accounts: { tiktok: number; instagram: number }): Promise<Tenant> {
  const tenant = await seedTenant(cluster, accounts.tiktok);
  const instagram = await connectInstagramAccounts(cluster, tenant, accounts.instagram);
  const faults = await injectInstagramFaults(cluster, instagram);
  for (const [plan, count] of faults.plans) line('  Instagram accounts with fault plan', `${count}: ${plan}`);
  line('  Instagram fault calls injected', faults.calls);
  return { ...tenant, platforms: [...tenant.platforms, ...instagram] };
}

/** Waits for the posts to settle, prints what Postdeck and the emulator recorded; true when it failed. */
async function report(
  cluster: Cluster,
  posts: CreatedPost[],
  windowStart: Date,
  options: { requireBothWorkers: boolean },
): Promise<boolean> {
  const { outcomes, settled } = await waitUntilSettled(cluster, posts, {
    quietUntil: new Date(windowStart.getTime() + 60_000),
    timeoutMs: SETTLE_TIMEOUT_MS,
  });
  const tiktokPosts = posts.filter((p) => p.network !== 'instagram');
  const instagramPosts = posts.filter((p) => p.network === 'instagram');
  const emulator = await readEmulator(cluster, tiktokPosts);
  const attempts = await readAttempts(cluster, posts);
  const perPost = [...emulator.publishesPerPost.values()].map((list) => list.length);
  const histogram = new Map<number, number>();
  for (const n of perPost) histogram.set(n, (histogram.get(n) ?? 0) + 1);
  const created = perPost.reduce((a, b) => a + b, 0);

  line('posts by state', formatStates(outcomes.byState));
  printErrors(outcomes);
  line(
    'TikTok publishes per post',
    [...histogram.entries()]
      .sort()
      .map(([n, count]) => `${n}: ${count} posts`)
      .join(', '),
  );
  line('max TikTok publishes for one post', Math.max(0, ...perPost));
  line('TikTok publishes without a bench post', emulator.strays.length);
  line(
    'init requests at TikTok',
    `${emulator.initRequests} for ${tiktokPosts.length} posts (${created} publishes created)`,
  );
  const instagramProblems = await reportInstagram(cluster, instagramPosts, outcomes);
  line('publish attempts', `${attempts.total} (${[...attempts.byPhase].map(([p, n]) => `${p} ${n}`).join(', ')})`);
  for (const [worker, count] of attempts.byWorker) line(`  attempts by worker ${worker.slice(0, 8)}`, count);

  const problems: string[] = [];
  if (!settled) problems.push(`${posts.length - countSettled(outcomes)} posts still QUEUE/PUBLISHING`);
  if (emulator.duplicates > 0) problems.push(`${emulator.duplicates} posts created twice at TikTok`);
  if (emulator.initRequests > tiktokPosts.length)
    problems.push(`${emulator.initRequests - tiktokPosts.length} init requests more than posts`);
  if (emulator.strays.length > 0) problems.push(`${emulator.strays.length} publishes match no bench post`);
  const reasonless = outcomes.docs.filter((d) => d.state === 'ERROR' && !d.errorText).length;
  if (reasonless > 0) problems.push(`${reasonless} ERROR posts without errorText`);
  // A post PUBLISHED by Postdeck must exist at TikTok exactly once.
  const publishedMissing = outcomes.docs.filter(
    (d) =>
      d.state === 'PUBLISHED' &&
      emulator.postedPerPost.has(d._id) &&
      (emulator.postedPerPost.get(d._id)?.length ?? 0) !== 1,
  ).length;
  if (publishedMissing > 0) problems.push(`${publishedMissing} PUBLISHED posts not at TikTok exactly once`);
  problems.push(...instagramProblems);
  if (options.requireBothWorkers) {
    // Two processes, never restarted: two holder ids, each with attempts.
    const active = [...attempts.byWorker.values()].filter((count) => count > 0).length;
    if (active < 2) problems.push(`only ${active} worker process made attempts`);
  }
  line('result', problems.length === 0 ? 'PASS' : `FAIL: ${problems.join('; ')}`);
  if (problems.length > 0)
    for (const w of cluster.workers.slice(-2)) console.log(`--- ${w.name} log tail\n${tailOf(w)}`);
  return problems.length > 0;
}

function countSettled(outcomes: PostOutcomes): number {
  return (outcomes.byState.get('PUBLISHED') ?? 0) + (outcomes.byState.get('ERROR') ?? 0);
}

function printErrors(outcomes: PostOutcomes): void {
  for (const [text, count] of outcomes.errors) line(`  ERROR ×${count}`, text);
}

/** Account counts "tiktok,instagram" from the environment variable `name`, else `fallback`. */
function accountsFromEnv(name: string, fallback: { tiktok: number; instagram: number }) {
  const raw = process.env[name];
  if (!raw) return fallback;
  const [tiktok, instagram] = raw.split(',').map(Number);
  if (!Number.isInteger(tiktok) || !Number.isInteger(instagram) || tiktok! < 0 || instagram! < 0)
    throw new Error(`${name} must be "tiktok,instagram" account counts, e.g. 100,50`);
  return { tiktok: tiktok!, instagram: instagram! };
}

/** `count` sorted random offsets in [from, to], each at least `gap` after the previous. */
function randomMoments(count: number, from: number, to: number, gap: number): number[] {
  const room = to - from - gap * (count - 1);
  const picks = Array.from({ length: count }, () => Math.random() * room).sort((a, b) => a - b);
  return picks.map((pick, i) => Math.floor(from + pick + i * gap));
}

await main();
