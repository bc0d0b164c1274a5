import { setTimeout as sleep } from 'node:timers/promises';
import { readWorkerProbe, sendWorkerProbe } from '../../src/core/ops/worker-probe.js';
import type { Cluster } from './cluster.js';
import {
  createPostsThroughApi,
  insertPostsDirectly,
  planPosts,
  postsApiAvailable,
  type CreatedPost,
  type Tenant,
} from './seed.js';
import { line } from './util.js';

/** How the bench's posts were made: through POST /public/v1/posts, or written directly (BENCH_SEED=direct). */
export type SeedPath = 'api' | 'direct';

/** Time allowed per post created through the API (BENCH_MS_PER_POST), which sets how far ahead the minute lies. */
const MS_PER_POST = Number(process.env.BENCH_MS_PER_POST ?? 120);
/** Room after the creation for starting the workers (process start, Agenda up, a probe job done). */
const WORKER_START_MS = 20_000;

/**
 * Creates `perAccount` posts on every platform of `tenant`, due within one minute that starts once
 * they all exist and `startWorkers` has the workers running: through the posts API when it is served
 * (BENCH_SEED=direct forces the direct path), else written directly and enqueued with
 * enqueuePostPublish. Workers start only after the creation, so their job polling (a scan of the
 * job collection per job name on FerretDB) does not slow the creation down.
 */
export async function createDuePosts(
  cluster: Cluster,
  tenant: Tenant,
  perAccount: number,
  options: { concurrency: number; startWorkers: () => void },
): Promise<{ posts: CreatedPost[]; windowStart: Date; path: SeedPath; createMs: number }> {
  const count = perAccount * tenant.platforms.length;
  const path: SeedPath =
    process.env.BENCH_SEED !== 'direct' && (await postsApiAvailable(cluster, tenant)) ? 'api' : 'direct';
  const leadMs = WORKER_START_MS + (path === 'api' ? count * MS_PER_POST : 5_000);
  const windowStart = new Date(Date.now() + leadMs);
  const planned = planPosts(tenant, perAccount, windowStart);
  const started = performance.now();
  const posts =
    path === 'api'
      ? await createPostsThroughApi(cluster, tenant, planned, options.concurrency)
      : await insertPostsDirectly(cluster, tenant, planned);
  const createMs = performance.now() - started;
  line(
    'posts created',
    `${posts.length} through ${path === 'api' ? 'POST /public/v1/posts' : 'direct insert + enqueuePostPublish'} in ${(createMs / 1000).toFixed(1)} s`,
  );
  options.startWorkers();
  await workerRunning(cluster);
  const spare = windowStart.getTime() - Date.now();
  if (spare < 0) {
    throw new Error(`creation and worker start overran the plan by ${-spare} ms: raise BENCH_MS_PER_POST`);
  }
  line('due window', `${windowStart.toISOString()} + 60 s (starts in ${(spare / 1000).toFixed(1)} s)`);
  return { posts, windowStart, path, createMs };
}

/** Waits until a worker has run a probe job (src/core/ops/worker-probe.ts): the queue is being processed. */
export async function workerRunning(cluster: Cluster, timeoutMs = WORKER_START_MS): Promise<void> {
  const probe = await sendWorkerProbe(cluster.core.deps, cluster.core.jobs, 0);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await readWorkerProbe(cluster.core.deps, probe._id))?.finishedAt) return;
    await sleep(250);
  }
  throw new Error(`no worker ran a probe job within ${timeoutMs} ms`);
}
