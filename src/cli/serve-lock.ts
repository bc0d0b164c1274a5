import { open } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config.js';
import { readIfPresent, removeIfUnchanged } from '../db/embedded/lock.js';
import { isPidAlive } from '../db/embedded/proc.js';

/**
 * What `DATA_DIR/serve-<port>.json` holds while a `postdeck serve` of this DATA_DIR serves that port,
 * from before it opens anything (the database, the emulators) until it has stopped.
 */
interface ServeRecord {
  pid: number;
  url: string;
  /** When the host booted (ms): a record from before a reboot is stale even if its pid is alive again. */
  bootedAt: number;
}

/** Two boot times closer than this are the same boot (os.uptime() is whole seconds). */
const SAME_BOOT_MS = 10_000;

/** Refused start: another Postdeck serves this port for this DATA_DIR, or something else holds the port. */
export class AlreadyRunningError extends Error {
  override readonly name = 'AlreadyRunningError';
}

/** The lock file of `port` in `dataDir`. */
export function serveLockPath(dataDir: string, port: number): string {
  return path.join(dataDir, `serve-${port}.json`);
}

/**
 * Throws AlreadyRunningError when a live Postdeck of this DATA_DIR serves config.port, or when the
 * port is taken by anything else. Changes nothing: `serve` runs it before building a stale dist/.
 */
export async function checkNotRunning(config: Config): Promise<void> {
  if (config.port === 0) return;
  const holder = await liveHolder(serveLockPath(config.dataDir, config.port));
  if (holder) throw alreadyRuns(holder.record, config);
  await requirePortFree(config);
}

/**
 * Takes this DATA_DIR's lock of config.port for this process (throwing AlreadyRunningError when a
 * live Postdeck holds it), then checks that the port itself is free. Resolves to the release.
 */
export async function takeServeLock(config: Config): Promise<() => Promise<void>> {
  if (config.port === 0) return () => Promise.resolve();
  const file = serveLockPath(config.dataDir, config.port);
  mkdirSync(config.dataDir, { recursive: true });
  const record: ServeRecord = { pid: process.pid, url: config.publicUrl, bootedAt: bootedAt() };
  const text = `${JSON.stringify(record)}\n`;
  for (;;) {
    try {
      const handle = await open(file, 'wx', 0o600);
      try {
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await liveHolder(file);
    if (holder) throw alreadyRuns(holder.record, config);
  }
  const release = () => removeIfUnchanged(file, (current) => current === text);
  try {
    await requirePortFree(config);
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}

/** The live holder of the lock file, or null; a stale file (dead pid, earlier boot, unreadable) is removed. */
async function liveHolder(file: string): Promise<{ record: ServeRecord } | null> {
  const text = await readIfPresent(file);
  if (text === null) return null;
  const record = parseRecord(text);
  const live =
    record !== null &&
    record.pid !== process.pid &&
    isPidAlive(record.pid) &&
    Math.abs(record.bootedAt - bootedAt()) < SAME_BOOT_MS;
  if (live) return { record };
  // Only the very content judged stale goes: a new holder that replaced it meanwhile stays.
  await removeIfUnchanged(file, (current) => current === text).catch(() => undefined);
  return null;
}

function parseRecord(text: string): ServeRecord | null {
  try {
    const value = JSON.parse(text) as Partial<ServeRecord> | null;
    if (typeof value?.pid !== 'number' || typeof value.url !== 'string' || typeof value.bootedAt !== 'number') {
      return null;
    }
    return { pid: value.pid, url: value.url, bootedAt: value.bootedAt };
  } catch {
    return null;
  }
}

function alreadyRuns(record: ServeRecord, config: Config): AlreadyRunningError {
  return new AlreadyRunningError(
    `Postdeck already runs at ${record.url} with this DATA_DIR (pid ${record.pid}). ` +
      `Stop it first, or give a second one its own PORT and DATA_DIR. ` +
      `(If no such process is Postdeck, delete ${serveLockPath(config.dataDir, config.port)}.)`,
  );
}

/** Binds the port for a moment: fails at once when another program (or a Postdeck of another DATA_DIR) has it. */
async function requirePortFree(config: Config): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: config.host, port: config.port, exclusive: true }, resolve);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE') throw error;
    throw new AlreadyRunningError(
      `port ${config.port} is in use by another program (or by a Postdeck with another DATA_DIR); ` +
        'stop it, or set PORT to a free port',
    );
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

function bootedAt(): number {
  return Date.now() - os.uptime() * 1_000;
}
