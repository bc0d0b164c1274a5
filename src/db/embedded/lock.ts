import { open, readFile, stat, unlink } from 'node:fs/promises';
import { isPidAlive, sleep } from './proc.js';

/** Releases a lock taken by {@link acquireLock}; safe to call twice. */
export type ReleaseLock = () => Promise<void>;

interface LockOptions {
  /** Give up after this long while a live process holds the lock. */
  timeoutMs: number;
  /** Called once, the first time we have to wait for a live holder. */
  onWait?: (holderPid: number) => void;
  /** What the lock guards, for the timeout message. */
  purpose: string;
}

/** A lock file whose writer died before writing its pid is stale after this long. */
const INCOMPLETE_LOCK_STALE_MS = 10_000;
const POLL_MS = 200;
/** When this process started; a lock carrying our own pid but older than this is from a previous life of the pid. */
const PROCESS_STARTED_AT = Date.now() - process.uptime() * 1_000;

/**
 * Takes an exclusive lock file (O_CREAT|O_EXCL) holding `{ pid, at }`. A lock whose pid is dead
 * is stale and taken over; a live holder is waited for, up to `timeoutMs`.
 */
export async function acquireLock(file: string, options: LockOptions): Promise<ReleaseLock> {
  const started = Date.now();
  let warned = false;
  for (;;) {
    const at = Date.now();
    try {
      const handle = await open(file, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ pid: process.pid, at }));
      } finally {
        await handle.close();
      }
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await removeIfUnchanged(file, (text) => ownerOf(text)?.at === at && ownerOf(text)?.pid === process.pid);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }

    const holder = await readHolder(file);
    if (holder.state === 'gone') continue;
    if (holder.state === 'stale') {
      // Only unlink the very content we judged stale: if another waiter already replaced it
      // with a fresh lock, that one stays. O_EXCL above decides who gets it next.
      await removeIfUnchanged(file, (text) => text === holder.text);
      continue;
    }
    if (!warned && holder.pid !== undefined) {
      warned = true;
      options.onWait?.(holder.pid);
    }
    if (Date.now() - started > options.timeoutMs) {
      throw new Error(
        `timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for process ${holder.pid ?? '?'} ` +
          `(${options.purpose}); if it is hung, stop it or delete ${file}`,
      );
    }
    await sleep(POLL_MS);
  }
}

type Holder = { state: 'gone' } | { state: 'stale'; text: string } | { state: 'held'; pid: number | undefined };

function ownerOf(text: string): { pid: number; at: number } | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const { pid, at } = value as Record<string, unknown>;
    return typeof pid === 'number' && typeof at === 'number' ? { pid, at } : null;
  } catch {
    return null;
  }
}

async function readHolder(file: string): Promise<Holder> {
  let text: string;
  let mtimeMs: number;
  try {
    text = await readFile(file, 'utf8');
    ({ mtimeMs } = await stat(file));
  } catch {
    return { state: 'gone' };
  }
  const owner = ownerOf(text);
  if (owner === null) {
    // Created but not yet (or never) written: give the writer a moment before calling it stale.
    return Date.now() - mtimeMs > INCOMPLETE_LOCK_STALE_MS
      ? { state: 'stale', text }
      : { state: 'held', pid: undefined };
  }
  // Our own pid is only a live holder if the lock was taken during this process's life
  // (another worker thread, or a concurrent call); an older one is from a previous user of the pid.
  const alive = owner.pid === process.pid ? owner.at >= PROCESS_STARTED_AT : isPidAlive(owner.pid);
  return alive ? { state: 'held', pid: owner.pid } : { state: 'stale', text };
}

/** The file's text, or null when there is no such file. */
export async function readIfPresent(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Unlinks `file` only if its current content still passes `check` (narrows the race with a new owner). */
export async function removeIfUnchanged(file: string, check: (text: string) => boolean): Promise<void> {
  try {
    const text = await readFile(file, 'utf8');
    if (check(text)) await unlink(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
