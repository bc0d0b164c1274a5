import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long work that only reports waits for publishing at most, so cards and notices still go out under
 * a publishing load that never pauses for a second. Longer than a busy minute's publishing and polls,
 * so held work never lands inside it.
 */
export const REPORTING_WAITS_AT_MOST_MS = 5 * 60_000;
/** How often held work looks again whether publishing gave way. */
const QUIET_CHECK_MS = 100;

/**
 * Holds work that only reports (relaying events, storing a cache) until `mayRun()` says publishing gave
 * way, or it has waited REPORTING_WAITS_AT_MOST_MS, then runs it one piece at a time, looking again
 * before each: a piece never runs beside a due post, and never in a burst.
 */
export function holdReports(mayRun: () => boolean) {
  const held: { work: () => Promise<void>; since: number }[] = [];
  let running: Promise<void> | null = null;

  async function runHeld(): Promise<void> {
    while (held.length > 0) {
      const oldest = held[0]!;
      if (!mayRun() && Date.now() - oldest.since < REPORTING_WAITS_AT_MOST_MS) {
        await sleep(QUIET_CHECK_MS);
        continue;
      }
      held.shift();
      await oldest.work();
    }
  }

  /** Starts the loop over held work unless it runs (a piece held as it ends starts it again). */
  function runSoon(): void {
    running ??= runHeld().finally(() => {
      running = null;
      if (held.length > 0) runSoon();
    });
  }

  return {
    /** Runs `work` when its turn comes; settles as it does. */
    hold<T>(work: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        held.push({ work: () => Promise.resolve().then(work).then(resolve, reject), since: Date.now() });
        runSoon();
      });
    },
    /** Settles once nothing is held (what is held then runs as soon as `mayRun` allows). */
    settled(): Promise<void> {
      return running ?? Promise.resolve();
    },
  };
}

/** True when a task has waited REPORTING_WAITS_AT_MOST_MS past its due time. */
export function heldLongEnough(task: { runAt: Date }): boolean {
  return Date.now() - task.runAt.getTime() >= REPORTING_WAITS_AT_MOST_MS;
}
