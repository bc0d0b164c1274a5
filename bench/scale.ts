/**
 * Scale-out, proven (npm run bench:scale; builds dist/ first): nginx from the operating system in front
 * of `serve --role api` processes and workers on one database, driven by a mixed load (REST reads and
 * drafts, MCP tool calls, uploads, scheduled posts falling due at the TikTok emulator, generation jobs
 * against the OpenAI emulator, drafts' cards in the Slack and Discord emulators with Approve pressed on
 * some, signed webhooks to a receiver here), first on ONE API process and one
 * worker, then on two of each while one of each is stopped by SIGTERM and one of each killed by SIGKILL
 * (each started again). Prints requests by route and status, p50/p99 per route of both phases, posts
 * published exactly once, cards once per draft per channel, webhook events delivered, stuck jobs, both
 * workers working and throughput; exits 1 on a failed check.
 *
 * BENCH_SCALE_SECONDS: the load per phase (default 180).
 */
import { execFileSync } from 'node:child_process';
import { benchWorkDir, openBenchDatabase } from './support/cluster.js';
import { runScale } from './support/scale-run.js';
import { line } from './support/util.js';

const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 180);

execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
const work = benchWorkDir('scale');
const database = await openBenchDatabase(work.dir);
try {
  line('database', database.kind);
  line(
    'load per phase',
    `${SECONDS} s, 8 clients, a scheduled post every 2 s, a generation job every 30 s, Approve on every 8th draft`,
  );
  const problems = await runScale({
    database,
    workDir: work.dir,
    accounts: 16,
    settleTimeoutMs: 4 * 60_000,
    load: {
      seconds: SECONDS,
      clients: 8,
      thinkMs: 50,
      scheduleEveryMs: 2_000,
      leadMs: [60_000, 120_000],
      generationEveryMs: 30_000,
      approveEvery: 8,
    },
  });
  if (problems.length > 0) process.exitCode = 1;
} finally {
  await database.stop();
  work.remove();
}
