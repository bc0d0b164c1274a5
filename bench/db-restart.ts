/**
 * The database goes away (npm run bench:db-restart; builds dist/ first): its own embedded FerretDB,
 * one API process, workers, the TikTok and OpenAI emulators. Posts fall due over a minute and
 * slideshow generations run; in the middle the database is stopped for BENCH_DB_DOWN_MS (30 s) and
 * started again on the same port. Prints whether every process stayed up, when /readyz turned 503
 * and 200 again, posts and generations by final state, TikTok publishes per post, the time from the
 * restart to all settled, and what each process logged during the outage. Exits 1 on a process that
 * died, a post published twice, anything unsettled, readiness that never turned, or a log flood.
 */
import { execFileSync } from 'node:child_process';
import { runDbRestart } from './support/db-restart-run.js';
import { line } from './support/util.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

if (process.env.MONGODB_URI) {
  console.error('bench:db-restart stops and starts a database of its own (the embedded FerretDB): unset MONGODB_URI');
  process.exit(1);
}
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
const report = await runDbRestart({
  downMs: env('BENCH_DB_DOWN_MS', 30_000),
  accounts: env('BENCH_ACCOUNTS', 20),
  postsPerAccount: env('BENCH_POSTS_PER_ACCOUNT', 3),
  dueWindowMs: env('BENCH_DUE_WINDOW_MS', 60_000),
  generations: env('BENCH_GENERATIONS', 3),
  slides: 6,
  modelLatencyMs: env('BENCH_LATENCY_MS', 1_500),
  workers: env('BENCH_WORKERS', 2),
  settleTimeoutMs: env('BENCH_SETTLE_TIMEOUT_MS', 5 * 60_000),
  startTimeoutMs: 60_000,
  floodPerSecond: 10,
  maxStackTraces: 1,
  pollIntervalMs: env('BENCH_POLL_MS', 2_000),
  print: line,
});
console.log(`\ndb-restart: ${report.problems.length === 0 ? 'PASS' : 'FAIL'}`);
if (report.problems.length > 0) process.exitCode = 1;
