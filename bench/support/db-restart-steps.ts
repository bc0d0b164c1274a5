import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GenerationJobDoc } from '../../src/core/slides/generation/documents.js';
import { submitGeneration } from '../../src/core/slides/generation/submit.js';
import type { Cluster } from './cluster.js';
import type { LogStretch } from './log-scan.js';
import { formatStates, isSettled, readOutcomes, type PostOutcomes } from './observe.js';
import { BENCH_SETTINGS, type CreatedPost, type Tenant } from './seed.js';

/** Submits `count` topic generations (drafts) for the tenant's first account, as the API would. */
export async function startGenerations(
  cluster: Cluster,
  tenant: Tenant,
  count: number,
  slides: number,
): Promise<string[]> {
  const platformId = tenant.platforms[0]?.platformId ?? '';
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { jobId } = await submitGeneration(cluster.core.deps, tenant.scope, {
      platformIds: [platformId],
      topic: `habits that last ${randomUUID().slice(0, 6)}`,
      slideCount: slides,
      mode: 'draft',
      settings: BENCH_SETTINGS,
    });
    ids.push(jobId);
  }
  return ids;
}

/** Waits until a worker has taken up a generation (PROCESSING), so the outage catches one mid-way. */
export async function waitForProcessing(cluster: Cluster, jobIds: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cluster.db.generationJobs.countDocuments({ _id: { $in: jobIds }, status: 'PROCESSING' })) return;
    await sleep(200);
  }
  throw new Error(`no generation was PROCESSING within ${timeoutMs} ms`);
}

/** The posts' states now, as one line. */
export async function statesNow(cluster: Cluster, posts: readonly CreatedPost[]): Promise<string> {
  return formatStates((await readOutcomes(cluster, posts)).byState);
}

/**
 * Waits until every post is PUBLISHED or ERROR and every generation DONE or FAILED, or `timeoutMs`
 * passed; reads that fail (the database still coming back) count as not yet.
 */
export async function waitForSettled(
  cluster: Cluster,
  posts: readonly CreatedPost[],
  jobIds: string[],
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const outcomes = await readOutcomes(cluster, posts);
      const jobsOpen = await cluster.db.generationJobs.countDocuments({
        _id: { $in: jobIds },
        status: { $nin: ['DONE', 'FAILED'] },
      });
      if (outcomes.docs.every((d) => isSettled(d.state)) && jobsOpen === 0) return true;
    } catch {
      // The driver still reconnecting.
    }
    await sleep(250);
  }
  return false;
}

/** `running`, or how the process ended. */
export function exitOf(child: ChildProcess): string {
  if (child.exitCode !== null) return `exit ${child.exitCode}`;
  if (child.signalCode !== null) return child.signalCode;
  return 'running';
}

/** Prints failed jobs with their reason, then what each process logged in one stretch (`when`). */
export function printDetails(
  jobs: readonly GenerationJobDoc[],
  logs: ReadonlyMap<string, LogStretch>,
  when: string,
  print: (label: string, value: string | number) => void,
): void {
  for (const job of jobs.filter((j) => j.status === 'FAILED')) print(`  generation FAILED`, job.error ?? '(no reason)');
  print(`log ${when}:`, '');
  for (const [name, stretch] of logs) {
    print(
      `  ${name}`,
      `${stretch.lines} lines, ${stretch.withStack} with a stack trace, busiest second ${stretch.maxPerSecond}` +
        ` (besides ${stretch.probeLines} request lines of this run's /readyz polls)`,
    );
    if (stretch.firstStack) print('    first with a stack trace', stretch.firstStack);
    for (const [message, count] of stretch.messages.slice(0, 12)) print(`    ×${count}`, message);
    if (stretch.messages.length > 12) print('    …', `${stretch.messages.length - 12} more distinct messages`);
  }
}

/** Each ERROR post's publish attempts, event by event: what the engine did before it gave up. */
export async function printErrorAttempts(
  cluster: Cluster,
  outcomes: PostOutcomes,
  print: (label: string, value: string | number) => void,
): Promise<void> {
  for (const post of outcomes.docs.filter((d) => d.state === 'ERROR')) {
    const attempts = await cluster.db.publishAttempts.find({ postId: post._id }).sort({ n: 1 }).toArray();
    print(`  ERROR post ${post._id}`, `${attempts.length} attempts`);
    for (const attempt of attempts) {
      for (const event of attempt.events) {
        print(`    #${attempt.n} ${event.at.toISOString()}`, `${event.what}${event.detail ? `: ${event.detail}` : ''}`);
      }
    }
  }
}
