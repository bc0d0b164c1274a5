import { readFileSync } from 'node:fs';
import { heartbeatPath } from '../../src/app/worker-heartbeat.js';
import type { PostdeckProcess } from './processes.js';

/** One look at the API's /readyz: the status (0 when no answer came) and the reason of a 503. */
export interface ReadySample {
  at: number;
  status: number;
  reason: string | undefined;
}

/** What the watch saw, every `everyMs`, until stopped. */
export interface ReadinessWatch {
  readonly samples: ReadySample[];
  /** Beats of the worker heartbeat file (the worker's readiness: written after each database ping). */
  readonly beats: number[];
  /** The first moment each process was seen dead, by name. */
  readonly deaths: Map<string, number>;
  stop(): Promise<void>;
}

/**
 * Polls the API's /readyz, the worker heartbeat under `dataDir`, and whether each process still
 * runs. A poll starts when the previous one ended (a hung /readyz is bounded by its own timeout).
 */
export function watchReadiness(options: {
  apiUrl: string;
  dataDir: string;
  processes: () => readonly PostdeckProcess[];
  everyMs: number;
}): ReadinessWatch {
  const samples: ReadySample[] = [];
  const beats: number[] = [];
  const deaths = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      samples.push(await readyz(options.apiUrl, started));
      const beat = lastBeat(options.dataDir);
      if (beat !== undefined && beat !== beats.at(-1)) beats.push(beat);
      for (const proc of options.processes()) {
        const dead = proc.child.exitCode !== null || proc.child.signalCode !== null;
        if (dead && !deaths.has(proc.name)) deaths.set(proc.name, Date.now());
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, options.everyMs - (Date.now() - started))));
    }
  })();
  return {
    samples,
    beats,
    deaths,
    async stop() {
      running = false;
      await loop;
    },
  };
}

async function readyz(apiUrl: string, at: number): Promise<ReadySample> {
  try {
    const answer = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
    const body = (await answer.json().catch(() => ({}))) as { reason?: string };
    return { at, status: answer.status, reason: body.reason };
  } catch {
    return { at, status: 0, reason: 'no answer' };
  }
}

function lastBeat(dataDir: string): number | undefined {
  try {
    const { at } = JSON.parse(readFileSync(heartbeatPath(dataDir), 'utf8')) as { at?: string };
    return at ? Date.parse(at) : undefined;
  } catch {
    return undefined;
  }
}

/** The first sample at or after `from` whose status is `status`; undefined when none. */
export function firstSample(samples: readonly ReadySample[], from: number, status: number): ReadySample | undefined {
  return samples.find((s) => s.at >= from && s.status === status);
}
