import { connect } from 'node:net';
import type { ChildProcess } from 'node:child_process';

/** True when a process with this pid exists (EPERM means it exists but belongs to someone else). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Splits `mongodb://host:port/...` into a host and port a socket can dial; null if it has none. */
export function hostPortOf(uri: string): { host: string; port: number } | null {
  try {
    const url = new URL(uri);
    const port = Number(url.port);
    if (!url.hostname || !Number.isInteger(port) || port <= 0) return null;
    // URL keeps the brackets around IPv6 literals; net.connect wants them gone.
    return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
  } catch {
    return null;
  }
}

/** Resolves true when a TCP connection to the uri's host:port opens within `timeoutMs`. */
export function canConnect(uri: string, timeoutMs = 1_000): Promise<boolean> {
  const target = hostPortOf(uri);
  return target ? canReach(target.host, target.port, timeoutMs) : Promise.resolve(false);
}

/** Resolves true when a TCP connection to host:port (DNS lookup included) opens within `timeoutMs`. */
export function canReach(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    // A plain timer, not socket.setTimeout: it must also bound a hanging DNS lookup.
    const timer = setTimeout(() => done(false), timeoutMs);
    function done(ok: boolean): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    }
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Resolves once the child has exited (at once if it already has). */
export function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Stops a child: closes its stdin, sends SIGTERM, and SIGKILL if it is still there after
 * `graceMs`. Resolves when it has exited.
 */
export async function terminateChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  const exited = waitForExit(child);
  child.stdin?.end();
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), graceMs);
  });
  const late = await Promise.race([exited.then(() => false), timedOut]);
  clearTimeout(timer);
  if (late) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Promise that sleeps `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Message of an unknown thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
