import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { readWorkerProbe, sendWorkerProbe } from '../../src/core/ops/worker-probe.js';
import type { Cluster } from './cluster.js';
import type { PostdeckProcess } from './processes.js';
import type { Traffic } from './scale-traffic.js';
import { BENCH_SETTINGS, type CreatedPost, type Tenant } from './seed.js';

/**
 * Waits until every one of `workers` has run a worker probe (the probe records the pid that ran it): each
 * is up and taking jobs. A restarted worker can be slow to start on a busy machine; posts offered only
 * once both are known to be up make "both workers publish" a property of the code, not of the timing.
 */
export async function workersUp(cluster: Cluster, workers: PostdeckProcess[], timeoutMs: number): Promise<void> {
  const missing = new Set(workers.map((w) => w.pid));
  const deadline = Date.now() + timeoutMs;
  while (missing.size > 0) {
    if (Date.now() > deadline) throw new Error(`workers ${[...missing].join(', ')} ran no probe in ${timeoutMs} ms`);
    // Two at once: either worker may take either, so a round gives each a chance.
    const probes = await Promise.all([1, 2].map(() => sendWorkerProbe(cluster.core.deps, cluster.core.jobs, 0)));
    for (const probe of probes) {
      while (Date.now() < deadline) {
        const seen = await readWorkerProbe(cluster.core.deps, probe._id);
        if (seen?.finishedAt) {
          if (seen.workerPid !== null) missing.delete(seen.workerPid);
          break;
        }
        await sleep(100);
      }
    }
  }
}

/**
 * Schedules `count` posts (accounts in turn) due `spacingMs` apart (or more) from a few seconds on,
 * through the proxy: offered while both workers are up, each due post is won by one of them (a lease
 * insert).
 */
export async function offerWhileBothUp(
  proxyUrl: string,
  tenant: Tenant,
  traffic: Traffic,
  count: number,
  spacingMs: number,
): Promise<CreatedPost[]> {
  const firstDue = Date.now() + 3_000 + count * 100;
  const offered: CreatedPost[] = [];
  for (let i = 0; i < count; i++) {
    const platform = tenant.platforms[i % tenant.platforms.length]!;
    // Never less than 5 s ahead when sent: on a busy machine the creations may lag behind the plan.
    const scheduledFor = new Date(Math.max(firstDue + i * spacingMs, Date.now() + 5_000));
    const tag = `bench-${randomUUID()}`;
    const answer = await traffic.fetch('POST /public/v1/posts (schedule)', `${proxyUrl}/public/v1/posts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify({
        mediaIds: [tenant.mediaId],
        settings: BENCH_SETTINGS,
        platformIds: [platform.platformId],
        content: `Scale post ${tag}`,
        mode: 'schedule',
        scheduledFor: scheduledFor.toISOString(),
      }),
    });
    if (answer.status !== 201) throw new Error(`scheduling answered ${answer.status}: ${await answer.text()}`);
    const created = (await answer.json()) as { results: { post?: { root: { id: string } } }[] };
    const postId = created.results[0]?.post?.root.id;
    if (!postId) throw new Error('scheduling answered 201 without a post');
    offered.push({ ...platform, scheduledFor, tag, postId });
  }
  return offered;
}

/** The worker runs (holder ids) that claimed a publish attempt of `posts`. */
export async function claimersOf(cluster: Cluster, posts: readonly CreatedPost[]): Promise<Set<string>> {
  const docs = await cluster.db.publishAttempts
    .find({ postId: { $in: posts.map((p) => p.postId) } }, { projection: { worker: 1 } })
    .toArray();
  return new Set(docs.map((d) => d.worker));
}
