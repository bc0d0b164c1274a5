import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// A built-in emulator is run by one Postdeck process of a DATA_DIR and found by the others (a worker, the
// admin CLI) through a record of its hosts: `DATA_DIR/<name>-emulator-url.json` (`name`: tiktok, instagram).

/** The hosts a recorded emulator answers at, and the callback it was started for. */
export interface RecordedHosts {
  apiUrl: string;
  authUrl: string;
  redirectUri?: string;
}

/** What a record holds: the hosts and the process that runs the emulator. */
export type EmulatorRecordOf<H extends RecordedHosts> = H & { pid: number; startedAt: string };

/** Where an emulator's hosts are recorded. */
export function recordPath(dataDir: string, name: string): string {
  return path.join(dataDir, `${name}-emulator-url.json`);
}

/**
 * The emulator recorded for `dataDir` when its process is alive and its control API answers at `probePath`;
 * null otherwise (a stale record is left for the next start to overwrite).
 */
export async function findRecordedEmulator<H extends RecordedHosts>(
  dataDir: string,
  name: string,
  probePath = '/__control/accounts',
): Promise<EmulatorRecordOf<H> | null> {
  let record: EmulatorRecordOf<H>;
  try {
    record = JSON.parse(readFileSync(recordPath(dataDir, name), 'utf8')) as EmulatorRecordOf<H>;
  } catch {
    return null;
  }
  if (typeof record.apiUrl !== 'string' || typeof record.pid !== 'number' || !isAlive(record.pid)) return null;
  try {
    const answer = await fetch(`${record.apiUrl}${probePath}`, { signal: AbortSignal.timeout(3_000) });
    return answer.ok ? record : null;
  } catch {
    return null;
  }
}

/** Records this process's emulator (written whole, then renamed, so a reader never sees half of it). */
export function writeEmulatorRecord(dataDir: string, name: string, record: EmulatorRecordOf<RecordedHosts>): void {
  const file = recordPath(dataDir, name);
  writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(`${file}.${process.pid}.tmp`, file);
}

/** Removes the record when it is this process's own; a newer one written by another process stays. */
export function removeEmulatorRecord(dataDir: string, name: string): void {
  try {
    const record = JSON.parse(readFileSync(recordPath(dataDir, name), 'utf8')) as { pid?: unknown };
    if (record.pid === process.pid) rmSync(recordPath(dataDir, name), { force: true });
  } catch {
    // already gone
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
