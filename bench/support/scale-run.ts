import { setTimeout as sleep } from 'node:timers/promises';
import { startCluster, type BenchDatabase, type Cluster } from './cluster.js';
import type { WorkerKill } from './killed-claims.js';
import { startChat } from './scale-chat.js';
import { startNginx, type RunningProxy } from './nginx.js';
import { offerWhileBothUp, workersUp } from './scale-both-up.js';
import { startOpenAiChild } from './openai-child.js';
import { workerRunning } from './posts-phase.js';
import { stopProcess, type PostdeckProcess } from './processes.js';
import { driveLoad, type LoadShape } from './scale-load.js';
import { checkOutcome, cpuSeconds, printComparison, printRequests } from './scale-report.js';
import { Traffic } from './scale-traffic.js';
import { seedTenant, type CreatedPost } from './seed.js';
import { freePort, line, waitForOk } from './util.js';
import { startReceiver } from './webhook-receiver.js';

/** How long a started process may take to answer /readyz: a node process starts slowly on a busy machine. */
const PROCESS_START_MS = 300_000;

/** One bench:scale run: the load of each phase, how many accounts post, how long settling may take. */
export interface ScaleConfig {
  database: BenchDatabase;
  workDir: string;
  load: LoadShape;
  accounts: number;
  settleTimeoutMs: number;
  /** Posts scheduled in phase two once both restarted workers are known to be up (default 12). */
  bothUpPosts?: number;
}

/**
 * Phase one: nginx over ONE `serve --role api` process and one worker. Phase two: nginx over two API
 * processes and two workers, the same load, with one API and one worker stopped by SIGTERM and started
 * again at a quarter of the load, and one of each killed by SIGKILL and started again at 60 %. Prints the
 * report; returns the failed checks (none: the run passed).
 */
export async function runScale(config: ScaleConfig): Promise<string[]> {
  const openai = await startOpenAiChild(200);
  try {
    console.log('\n== 1. one API process, one worker, behind nginx ==');
    const one = await runPhase(config, openai.baseUrl, 1);
    console.log('\n== 2. two API processes, two workers, behind nginx; SIGTERM then SIGKILL ==');
    const two = await runPhase(config, openai.baseUrl, 2);
    printComparison(one.figures, two.figures);
    const problems = [...one.problems.map((p) => `phase 1: ${p}`), ...two.problems.map((p) => `phase 2: ${p}`)];
    console.log(`\nscale: ${problems.length === 0 ? 'PASS' : `FAIL: ${problems.join('; ')}`}`);
    return problems;
  } finally {
    await openai.stop();
  }
}

async function runPhase(config: ScaleConfig, openaiBaseUrl: string, size: 1 | 2) {
  const proxyPort = await freePort();
  const chat = await startChat();
  const cluster = await startCluster({
    database: config.database,
    workDir: config.workDir,
    pollIntervalMs: 2_000,
    publicUrl: `http://127.0.0.1:${proxyPort}`,
    env: {
      // Draining as in production: /readyz says 503 this long before the process stops listening.
      SHUTDOWN_READY_GRACE_MS: '3000',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      OPENAI_BASE_URL: `${openaiBaseUrl}`,
      OPENAI_API_KEY: 'bench-openai-key',
      ...chat.env,
    },
  });
  const receiver = await startReceiver();
  let proxy: RunningProxy | undefined;
  try {
    const ports = [Number(new URL(cluster.apiUrl).port)];
    if (size === 2) {
      ports.push(await freePort());
      cluster.startApi('api-2', ports[1]!);
      await waitForOk(`http://127.0.0.1:${ports[1]}/readyz`, PROCESS_START_MS);
    }
    proxy = await startNginx(
      ports.map((port) => `127.0.0.1:${port}`),
      proxyPort,
    );
    const tenant = await seedTenant(cluster, config.accounts);
    const endpoint = await registerWebhook(proxy.url, tenant.apiKey, `${receiver.url}/scale`);
    receiver.expect('/scale', endpoint.secret);
    const workers = size === 2 ? ['worker-a', 'worker-b'] : ['worker-a'];
    for (const name of workers) cluster.startWorker(name);
    await workerRunning(cluster, PROCESS_START_MS);
    await chat.link(proxy.url, cluster, tenant);

    const traffic = new Traffic();
    const api = cluster.apis[0]!;
    const cpuBefore = cpuSeconds(api.pid);
    const loadStarted = Date.now();
    const [outcome] = await Promise.all([
      driveLoad(proxy.url, tenant, config.load, traffic, chat),
      size === 2 ? restarts(cluster, ports, config.load.seconds, traffic) : Promise.resolve(),
    ]);
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    const apiCpu = size === 1 ? cpuSeconds(api.pid) - cpuBefore : Number.NaN;
    // Both workers share the work: posts offered once both runs are seen taking jobs (a restart's
    // start time under load is no part of what is checked).
    const bothUp: CreatedPost[] = [];
    if (size === 2) {
      const running = [latest(cluster.workers, 'worker-a'), latest(cluster.workers, 'worker-b')];
      await workersUp(cluster, running, PROCESS_START_MS);
      bothUp.push(...(await offerWhileBothUp(proxy.url, tenant, traffic, config.bothUpPosts ?? 12, 400)));
      outcome.scheduled.push(...bothUp);
    }

    console.log(`requests through nginx (${loadSeconds.toFixed(0)} s of load):`);
    const { figures, bad5xx, invalid } = printRequests(traffic);
    for (const outage of traffic.outages)
      line(`  ${outage.process} ${outage.signal}`, `gone ${((outage.to - outage.from) / 1000).toFixed(1)} s`);
    line('5xx not answered by the proxy for a gone process', bad5xx);
    const recovered = await cluster.db.chatCardActions.countDocuments({ recovered: true });
    line('Approve clicks carried out by the worker (their API process gone)', recovered);
    const problems = bad5xx > 0 ? [`${bad5xx} 5xx not from the proxy during an outage`] : [];
    if (invalid > 0) problems.push(`${invalid} requests answered 4xx`);
    problems.push(
      ...(await checkOutcome(cluster, tenant, outcome, {
        settleTimeoutMs: config.settleTimeoutMs,
        webhookEndpointId: endpoint.id,
        webhookPath: '/scale',
        received: () => receiver.received,
        twoWorkers: size === 2,
        bothUp,
        chat,
        workerKill: workerKillOf(traffic),
      })),
    );
    await printThroughput(cluster, traffic, loadSeconds, apiCpu, outcome.scheduled.length + outcome.approved.length);
    return { figures, problems };
  } finally {
    await proxy?.stop();
    await receiver.close();
    await cluster.stop();
    await chat.stop();
  }
}

/** Figures docs/scale.md can cite: what the load made each process carry (not a capacity limit). */
async function printThroughput(cluster: Cluster, traffic: Traffic, seconds: number, apiCpu: number, posts: number) {
  const delivered = await cluster.db.webhookDeliveries.countDocuments({ state: 'delivered' });
  line('requests/s through nginx', (traffic.exchanges.length / seconds).toFixed(1));
  if (Number.isFinite(apiCpu))
    line(
      'the one API process: CPU',
      `${apiCpu.toFixed(1)} s in ${seconds.toFixed(0)} s (${((100 * apiCpu) / seconds).toFixed(0)} % of a core)`,
    );
  line('posts published per second (offered)', (posts / seconds).toFixed(2));
  line('webhook deliveries per second (offered)', (delivered / seconds).toFixed(2));
}

/** SIGTERM api-2 and worker-b at 25 % of the load, SIGKILL api (the first) and worker-a at 60 %; each started again. */
async function restarts(cluster: Cluster, ports: number[], seconds: number, traffic: Traffic): Promise<void> {
  const start = Date.now();
  const at = async (fraction: number) => sleep(Math.max(0, start + fraction * seconds * 1000 - Date.now()));
  await at(0.25);
  await Promise.all([
    bounce(cluster, traffic, latest(cluster.apis, 'api-2'), 'SIGTERM', ports[1]),
    bounce(cluster, traffic, latest(cluster.workers, 'worker-b'), 'SIGTERM'),
  ]);
  await at(0.6);
  await Promise.all([
    bounce(cluster, traffic, latest(cluster.apis, 'api'), 'SIGKILL', ports[0]),
    bounce(cluster, traffic, latest(cluster.workers, 'worker-a'), 'SIGKILL'),
  ]);
}

/** The SIGKILL of worker-a, bounded by worker-b's restart before it (see killed-claims.ts). */
function workerKillOf(traffic: Traffic): WorkerKill | undefined {
  const restarted = traffic.outages.find((o) => o.process === 'worker-b' && o.signal === 'SIGTERM');
  const killed = traffic.outages.find((o) => o.process === 'worker-a' && o.signal === 'SIGKILL');
  return restarted && killed ? { since: restarted.to, at: killed.to } : undefined;
}

function latest(list: PostdeckProcess[], name: string): PostdeckProcess {
  const found = list.filter((p) => p.name === name).at(-1);
  if (!found) throw new Error(`no process ${name}`);
  return found;
}

/** Stops `proc` with `signal`, starts it again a second later and records the outage until it is ready. */
async function bounce(
  cluster: Cluster,
  traffic: Traffic,
  proc: PostdeckProcess,
  signal: NodeJS.Signals,
  port?: number,
) {
  const from = Date.now();
  await stopProcess(proc, signal);
  await sleep(1_000);
  if (port === undefined) cluster.startWorker(proc.name);
  else {
    cluster.startApi(proc.name, port);
    await waitForOk(`http://127.0.0.1:${port}/readyz`, PROCESS_START_MS);
  }
  traffic.outages.push({ process: proc.name, signal, from, to: Date.now() });
}

async function registerWebhook(proxyUrl: string, apiKey: string, url: string) {
  const answer = await fetch(`${proxyUrl}/public/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      url,
      events: ['post.created', 'post.published', 'post.failed', 'generation.done', 'generation.failed'],
    }),
  });
  if (answer.status !== 201) throw new Error(`POST /webhooks answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()) as { id: string; secret: string };
}
