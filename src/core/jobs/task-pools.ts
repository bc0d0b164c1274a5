import type { JobPriority } from './job-handle.js';

/** The order tasks are claimed in, by their definition's priority (see JobHandle.priority). */
export const RANK: Record<JobPriority, number> = { publishing: 0, normal: 1, reporting: 2, outbound: 3 };
/** The outbound pool's default size: sends to other servers, each at most 15 s (webhooks/post-signed.ts). */
const OUTBOUND_CONCURRENCY = 16;

/**
 * Counts a due-task lane's running tasks by pool: `concurrency` shared slots, of which `reporting`
 * tasks take at most `reporting` (default a quarter, at least one, so the rest stay free for posts), and
 * the outbound pool apart (default 16), so a slow receiver never takes a shared slot.
 */
export function createTaskPools(limits: { concurrency: number; reporting?: number; outbound?: number }) {
  const reportingLimit = limits.reporting ?? Math.max(1, Math.floor(limits.concurrency / 4));
  const outboundLimit = limits.outbound ?? OUTBOUND_CONCURRENCY;
  const running = { shared: 0, publishing: 0, reporting: 0, outbound: 0 };
  const count = (rank: number, by: 1 | -1) => {
    if (rank === RANK.outbound) running.outbound += by;
    else running.shared += by;
    if (rank === RANK.reporting) running.reporting += by;
    if (rank === RANK.publishing) running.publishing += by;
  };
  return {
    /** Publishing tasks running. */
    publishing: () => running.publishing,
    /** True when no task but an outbound one may start. */
    sharedFull: () => running.shared >= limits.concurrency,
    /** True when a task of `rank` has no room in its pool. */
    full(rank: number): boolean {
      if (rank === RANK.outbound) return running.outbound >= outboundLimit;
      return running.shared >= limits.concurrency || (rank === RANK.reporting && running.reporting >= reportingLimit);
    },
    take: (rank: number) => count(rank, 1),
    give: (rank: number) => count(rank, -1),
  };
}
