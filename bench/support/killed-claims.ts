import { OUTCOME_UNKNOWN_TEXT } from '../../src/core/publishing/error-texts.js';
import type { Cluster } from './cluster.js';
import type { PostOutcomes } from './observe.js';

/**
 * A worker run SIGKILLed under the load (epoch ms): `since`, the other worker's run was started again
 * (its first run had exited); `at`, the killed run had exited and its successor was being started.
 */
export interface WorkerKill {
  since: number;
  at: number;
}

/**
 * The posts a SIGKILL rightly left ERROR "outcome unknown": the killed run had sent the init and died
 * before TikTok's answer was stored, so the engine never sends them again (docs/decisions.md, the
 * sweeper). Each must be the latest attempt of a run that claimed after `since`, no later than `at`,
 * and never again (the killed run; the runs still alive keep claiming), settled by the sweeper.
 */
export async function outcomeUnknownByKill(
  cluster: Cluster,
  outcomes: PostOutcomes,
  kill: WorkerKill | undefined,
): Promise<Set<string>> {
  const unknown = outcomes.docs.filter((d) => d.state === 'ERROR' && d.errorText === OUTCOME_UNKNOWN_TEXT);
  if (!kill || unknown.length === 0) return new Set();
  const attempts = await cluster.db.publishAttempts
    .find({}, { projection: { postId: 1, n: 1, worker: 1, claimedAt: 1, phase: 1 } })
    .toArray();
  const lastClaim = new Map<string, number>();
  for (const a of attempts) lastClaim.set(a.worker, Math.max(lastClaim.get(a.worker) ?? 0, a.claimedAt.getTime()));
  const latest = new Map<string, (typeof attempts)[number]>();
  for (const a of attempts) if ((latest.get(a.postId)?.n ?? 0) < a.n) latest.set(a.postId, a);
  const byKill = new Set<string>();
  for (const doc of unknown) {
    const attempt = latest.get(doc._id);
    if (!attempt || attempt.phase !== 'outcome_unknown') continue;
    const claimed = attempt.claimedAt.getTime();
    const killedRun = (lastClaim.get(attempt.worker) ?? Infinity) <= kill.at;
    if (claimed > kill.since && claimed <= kill.at && killedRun) byKill.add(doc._id);
  }
  return byKill;
}
