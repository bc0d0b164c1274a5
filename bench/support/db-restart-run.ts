import { setTimeout as sleep } from 'node:timers/promises';
import { benchWorkDir, startCluster, type Cluster } from './cluster.js';
import {
  exitOf,
  printDetails,
  printErrorAttempts,
  startGenerations,
  statesNow,
  waitForProcessing,
  waitForSettled,
} from './db-restart-steps.js';
import { logOffset, scanLog, type LogStretch } from './log-scan.js';
import { formatStates, readEmulator, readOutcomes } from './observe.js';
import { startOpenAiChild } from './openai-child.js';
import { workerRunning } from './posts-phase.js';
import { firstSample, watchReadiness } from './readiness-watch.js';
import { openRestartableDatabase, type RestartableDatabase } from './restartable-database.js';
import { createPostsThroughApi, planPosts, seedTenant } from './seed.js';

/** The shape of one database-restart run (bench/db-restart.ts at full size, the suite's test small). */
export interface DbRestartOptions {
  /** How long the database stays down. */
  downMs: number;
  accounts: number;
  postsPerAccount: number;
  /** The posts fall due evenly over this window; the outage starts in its middle. */
  dueWindowMs: number;
  /** How long after the posts are created the window starts: time for the workers to start (default 20 s). */
  leadMs?: number;
  generations: number;
  slides: number;
  /** The OpenAI emulator's latency per call: long enough that generations are under way at the stop. */
  modelLatencyMs: number;
  workers: number;
  /** How long after the restart everything may take to settle (and /readyz to answer 200) before it counts as stuck. */
  settleTimeoutMs: number;
  /** How long a worker may take to start, and a generation to be taken up. */
  startTimeoutMs: number;
  /** Most lines one process may log in any second of the outage; more is a flood. */
  floodPerSecond: number;
  /** Most lines with a stack trace one process may log during the outage. */
  maxStackTraces: number;
  pollIntervalMs: number;
  /** Where the FerretDB binary is built and cached (.cache/ferretdb). */
  ferretCacheDir?: string;
  print: (label: string, value: string | number) => void;
}

/** What a run found; `problems` empty means it passed. */
export interface DbRestartReport {
  /** `running` for each process still up at the end, else how it ended. */
  exits: Map<string, string>;
  readyDownAfterMs: number | undefined;
  readyBackAfterMs: number | undefined;
  postStates: string;
  maxPublishesPerPost: number;
  generationStates: string;
  settleMs: number | undefined;
  /** What a REST read sent while the database was away was answered: status, code and Retry-After. */
  answerDuringOutage: string;
  /** What each process logged while the database was down, and from its start to all settled. */
  logs: Map<string, LogStretch>;
  recoveryLogs: Map<string, LogStretch>;
  problems: string[];
}

/**
 * Publishing and slide generation under way across an API process and workers, then the database
 * stopped for `downMs` and started again: watches readiness and the processes, waits for everything
 * to settle, and reads what TikTok got and what each process logged while the database was away.
 */
export async function runDbRestart(options: DbRestartOptions): Promise<DbRestartReport> {
  const work = benchWorkDir('db-restart');
  let database: RestartableDatabase | undefined;
  let openai: Awaited<ReturnType<typeof startOpenAiChild>> | undefined;
  let cluster: Cluster | undefined;
  try {
    database = await openRestartableDatabase(work.dir, options.ferretCacheDir);
    openai = await startOpenAiChild(options.modelLatencyMs);
    cluster = await startCluster({
      database,
      workDir: work.dir,
      pollIntervalMs: options.pollIntervalMs,
      // info, the default: the "few lines" are the ones an operator would read.
      env: { OPENAI_BASE_URL: openai.baseUrl, OPENAI_API_KEY: 'emulator', LOG_LEVEL: 'info' },
    });
    return await underOutage(cluster, database, options);
  } finally {
    await cluster?.stop();
    await openai?.stop();
    await database?.stop();
    work.remove();
  }
}

async function underOutage(
  cluster: Cluster,
  database: RestartableDatabase,
  options: DbRestartOptions,
): Promise<DbRestartReport> {
  const { print } = options;
  const tenant = await seedTenant(cluster, options.accounts);
  const count = options.accounts * options.postsPerAccount;
  const windowStart = new Date(Date.now() + (options.leadMs ?? 20_000) + count * 150);
  const posts = await createPostsThroughApi(
    cluster,
    tenant,
    planPosts(tenant, options.postsPerAccount, windowStart, options.dueWindowMs),
    4,
  );
  for (let i = 1; i <= options.workers; i++) cluster.startWorker(`worker-${i}`);
  await workerRunning(cluster, options.startTimeoutMs);
  const processes = () => [cluster.api, ...cluster.workers];
  const watch = watchReadiness({
    apiUrl: cluster.apiUrl,
    dataDir: cluster.env.DATA_DIR ?? '',
    processes,
    everyMs: 250,
  });
  try {
    await sleep(Math.max(0, windowStart.getTime() + options.dueWindowMs / 2 - Date.now()));
    const jobIds = await startGenerations(cluster, tenant, options.generations, options.slides);
    await waitForProcessing(cluster, jobIds, options.startTimeoutMs);
    print(
      'posts at the stop',
      `${posts.length} due over ${options.dueWindowMs / 1000} s: ${await statesNow(cluster, posts)}`,
    );
    print('generations', `${jobIds.length} of ${options.slides} slides, model latency ${options.modelLatencyMs} ms`);

    const logsFrom = new Map(processes().map((p) => [p.name, logOffset(p.logFile)]));
    const stoppedAt = Date.now();
    await database.halt();
    // Once /readyz says the database is gone, a client's read: a code worth retrying, not a bug.
    const goneBy = stoppedAt + options.downMs / 2;
    while (!firstSample(watch.samples, stoppedAt, 503) && Date.now() < goneBy) await sleep(250);
    const answerDuringOutage = await readDuringOutage(cluster.apiUrl, tenant.apiKey);
    await sleep(Math.max(0, stoppedAt + options.downMs - Date.now()));
    const restartedAt = Date.now();
    await database.resume();
    print('database', `stopped ${((restartedAt - stoppedAt) / 1000).toFixed(1)} s, then started on the same port`);
    const logsTo = new Map(processes().map((p) => [p.name, logOffset(p.logFile)]));

    const settled = await waitForSettled(cluster, posts, jobIds, options.settleTimeoutMs);
    const settleMs = settled ? Date.now() - restartedAt : undefined;
    const logsEnd = new Map(processes().map((p) => [p.name, logOffset(p.logFile)]));
    const readyBy = restartedAt + options.settleTimeoutMs;
    while (!firstSample(watch.samples, restartedAt, 200) && Date.now() < readyBy) await sleep(250);
    await watch.stop();

    const down = firstSample(watch.samples, stoppedAt, 503);
    const back = firstSample(watch.samples, restartedAt, 200);
    const outcomes = await readOutcomes(cluster, posts);
    const emulator = await readEmulator(cluster, posts);
    const perPost = [...emulator.publishesPerPost.values()].map((list) => list.length);
    const jobs = await cluster.db.generationJobs.find({ _id: { $in: jobIds } }).toArray();
    const jobStates = new Map<string, number>();
    for (const job of jobs) jobStates.set(job.status, (jobStates.get(job.status) ?? 0) + 1);
    const logs = new Map(
      processes().map((p) => [p.name, scanLog(p.logFile, logsFrom.get(p.name) ?? 0, logsTo.get(p.name) ?? 0)]),
    );
    const recoveryLogs = new Map(
      // After the start the work catches up, logging as it does: only warnings and errors make a flood there.
      processes().map((p) => [p.name, scanLog(p.logFile, logsTo.get(p.name) ?? 0, logsEnd.get(p.name) ?? 0, 40)]),
    );
    const histogram = new Map<number, number>();
    for (const n of perPost) histogram.set(n, (histogram.get(n) ?? 0) + 1);
    const report: DbRestartReport = {
      exits: new Map(processes().map((p) => [p.name, exitOf(p.child)])),
      readyDownAfterMs: down && down.at - stoppedAt,
      readyBackAfterMs: back && back.at - restartedAt,
      postStates: formatStates(outcomes.byState),
      maxPublishesPerPost: Math.max(0, ...perPost),
      generationStates: [...jobStates].map(([s, n]) => `${s} ${n}`).join(', '),
      settleMs,
      answerDuringOutage,
      logs,
      recoveryLogs,
      problems: [],
    };
    const problems = report.problems;
    for (const [name, exit] of report.exits) if (exit !== 'running') problems.push(`${name} died (${exit})`);
    for (const [name, at] of watch.deaths) problems.push(`${name} was seen dead ${at - stoppedAt} ms after the stop`);
    if (!down) problems.push('/readyz never answered 503 while the database was down');
    else if (down.reason !== 'database_unreachable')
      problems.push(`/readyz said ${down.reason}, not database_unreachable`);
    if (!back) problems.push('/readyz never answered 200 again after the restart');
    if (answerDuringOutage !== OUTAGE_ANSWER)
      problems.push(`a read during the outage was answered ${answerDuringOutage}, not ${OUTAGE_ANSWER}`);
    if (emulator.duplicates > 0) problems.push(`${emulator.duplicates} posts published twice at TikTok`);
    const publishedMissing = outcomes.docs.filter(
      (d) => d.state === 'PUBLISHED' && (emulator.postedPerPost.get(d._id)?.length ?? 0) !== 1,
    ).length;
    if (publishedMissing > 0) problems.push(`${publishedMissing} PUBLISHED posts not at TikTok exactly once`);
    if (!settled) problems.push(`posts or generations unsettled ${options.settleTimeoutMs / 1000} s after the restart`);
    if (outcomes.docs.some((d) => d.state === 'ERROR' && !d.errorText)) problems.push('ERROR posts without a reason');
    if (jobs.some((j) => j.status === 'FAILED' && !j.error)) problems.push('FAILED generations without a reason');
    for (const [when, stretches] of [
      ['during the outage', logs],
      ['after the start', recoveryLogs],
    ] as const) {
      for (const [name, stretch] of stretches) {
        if (stretch.withStack > options.maxStackTraces)
          problems.push(`${name} logged ${stretch.withStack} stack traces ${when}`);
        if (stretch.maxPerSecond > options.floodPerSecond)
          problems.push(`${name} logged ${stretch.maxPerSecond} lines in one second ${when}`);
      }
    }

    for (const [name, exit] of report.exits) print(`process ${name}`, exit);
    print('/readyz 503 after the stop', down ? `${down.at - stoppedAt} ms (${down.reason})` : 'never');
    print('GET /public/v1/posts during the outage', answerDuringOutage);
    print('/readyz 200 after the start', back ? `${back.at - restartedAt} ms` : 'never');
    const beatsDuring = watch.beats.filter((at) => at > stoppedAt && at < restartedAt).length;
    const beatAfter = watch.beats.find((at) => at >= restartedAt);
    print('worker heartbeats during the outage', beatsDuring);
    print('worker heartbeat after the start', beatAfter === undefined ? 'none yet' : `${beatAfter - restartedAt} ms`);
    print('posts by state', report.postStates);
    for (const [text, n] of outcomes.errors) print(`  ERROR ×${n}`, text);
    await printErrorAttempts(cluster, outcomes, print);
    print(
      'TikTok publishes per post',
      [...histogram]
        .sort()
        .map(([n, posts]) => `${n}: ${posts} posts`)
        .join(', '),
    );
    print('generations by state', report.generationStates);
    print('restart to all settled', settleMs === undefined ? 'not settled' : `${(settleMs / 1000).toFixed(1)} s`);
    printDetails(jobs, logs, 'during the outage', print);
    printDetails([], recoveryLogs, 'from the start to all settled (busiest second: warnings and errors only)', print);
    print('result', problems.length === 0 ? 'PASS' : `FAIL: ${problems.join('; ')}`);
    return report;
  } finally {
    await watch.stop();
  }
}

/** What a request that needs the database is answered while it is away. */
const OUTAGE_ANSWER = '503 database_unavailable, Retry-After 5';

async function readDuringOutage(apiUrl: string, apiKey: string): Promise<string> {
  try {
    const response = await fetch(`${apiUrl}/public/v1/posts`, { headers: { authorization: `Bearer ${apiKey}` } });
    const body = (await response.json().catch(() => ({}))) as { code?: string };
    return `${response.status} ${body.code ?? '(no code)'}, Retry-After ${response.headers.get('retry-after') ?? 'none'}`;
  } catch (error) {
    return `no answer (${(error as Error).message})`;
  }
}
