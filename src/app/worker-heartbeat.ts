import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { logFailure } from '../core/db/unreachable.js';

/** How often a worker records that it is alive. */
export const HEARTBEAT_EVERY_MS = 10_000;
/** How old a heartbeat may be for `admin worker-health`: three beats, so one slow ping is no alarm. */
export const DEFAULT_HEARTBEAT_MAX_AGE_MS = 3 * HEARTBEAT_EVERY_MS;

/** What `DATA_DIR/heartbeats/worker-<host>.json` holds. */
export interface WorkerHeartbeat {
  pid: number;
  host: string;
  at: string;
}

/** This host's worker heartbeat: named by host, since containers (each its own host name) share DATA_DIR. */
export function heartbeatPath(dataDir: string, host = os.hostname()): string {
  return path.join(dataDir, 'heartbeats', `worker-${host}.json`);
}

/**
 * Writes the heartbeat now and every HEARTBEAT_EVERY_MS after `check` (a database ping) succeeds,
 * so a worker that hangs or cannot reach its database goes stale. The worker serves no HTTP: this
 * file is what its health check reads. `stop` removes it.
 */
export function startWorkerHeartbeat(dataDir: string, check: () => Promise<void>, logger: Logger): { stop(): void } {
  const file = heartbeatPath(dataDir);
  mkdirSync(path.dirname(file), { recursive: true });
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;
  const beat = async () => {
    try {
      await check();
      if (stopped) return;
      const heartbeat: WorkerHeartbeat = { pid: process.pid, host: os.hostname(), at: new Date().toISOString() };
      writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify(heartbeat)}\n`);
      renameSync(`${file}.${process.pid}.tmp`, file);
      if (failing) logger.info('worker heartbeat resumed');
      failing = false;
    } catch (error) {
      // Logged once per outage (not at shutdown); the heartbeat going stale is what reports it.
      if (!failing && !stopped)
        logFailure(logger, 'warn', error, {}, 'worker heartbeat skipped: the database does not answer');
      failing = true;
    }
    if (!stopped) timer = setTimeout(() => void beat(), HEARTBEAT_EVERY_MS).unref();
  };
  void beat();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      if (readHeartbeat(file)?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}

/** Whether this host's worker beat within `maxAgeMs` and is still running; the problem when not. */
export function workerHealth(
  dataDir: string,
  maxAgeMs: number,
  now = Date.now(),
): { heartbeat: WorkerHeartbeat; ageMs: number } | { problem: string } {
  const file = heartbeatPath(dataDir);
  const heartbeat = readHeartbeat(file);
  if (!heartbeat) return { problem: `no worker heartbeat at ${file} (is a worker running on this host?)` };
  const ageMs = now - Date.parse(heartbeat.at);
  if (!isRunning(heartbeat.pid)) return { problem: `the worker (pid ${heartbeat.pid}) is not running` };
  if (!(ageMs <= maxAgeMs)) {
    return { problem: `the worker (pid ${heartbeat.pid}) last beat ${Math.round(ageMs / 1000)} s ago` };
  }
  return { heartbeat, ageMs };
}

function readHeartbeat(file: string): WorkerHeartbeat | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<WorkerHeartbeat>;
    return typeof parsed.pid === 'number' && typeof parsed.at === 'string' ? (parsed as WorkerHeartbeat) : undefined;
  } catch {
    return undefined;
  }
}

// EPERM: the process exists but belongs to someone else.
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
