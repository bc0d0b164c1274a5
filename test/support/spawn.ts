import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The real entry point, as `npm start` and `npx postdeck` run it. */
export const ENTRY = path.resolve('bin/postdeck.js');
const ARTIFACTS = path.resolve('test-artifacts');

/** A free loopback port (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A spawned Postdeck process whose output goes to test-artifacts/<name>.log. */
export interface SpawnedPostdeck {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** What it printed so far, stdout and stderr interleaved. */
  readonly output: () => string;
}

/**
 * A spawned server stops at once on SIGTERM: the readiness grace (5 s by default, for a load balancer
 * to notice) would only slow each test down. The rolling-restart test sets its own.
 */
const QUICK_STOP = { SHUTDOWN_READY_GRACE_MS: '0' };

/**
 * Spawns `postdeck <args>` with `env` on top of a clean environment (no MONGODB_URI leaks in).
 * `detached`: it leads a process group of its own, as a command started in a terminal does, so a
 * test can signal the whole group the way Ctrl-C does (`process.kill(-pid, 'SIGINT')`).
 */
export function spawnPostdeck(
  name: string,
  args: string[],
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): SpawnedPostdeck {
  return spawnLogged(name, process.execPath, [ENTRY, ...args], env, options);
}

/** Spawns any command the way spawnPostdeck does (e.g. `npm start`). */
export function spawnLogged(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): SpawnedPostdeck {
  mkdirSync(ARTIFACTS, { recursive: true });
  const log = createWriteStream(path.join(ARTIFACTS, `${name}.log`), { flags: 'a' });
  const { MONGODB_URI: _ignored, ...base } = process.env;
  const child = spawn(command, args, {
    env: { ...base, ...QUICK_STOP, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      log.write(chunk);
    });
  }
  child.once('close', () => log.end());
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** Runs `postdeck <args>` to completion and returns its stdout; throws with stderr on failure. */
export async function runPostdeck(args: string[], env: Record<string, string>): Promise<string> {
  const { MONGODB_URI: _ignored, ...base } = process.env;
  const child = spawn(process.execPath, [ENTRY, ...args], {
    env: { ...base, ...QUICK_STOP, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`postdeck ${args.join(' ')} exited ${code}: ${stderr}`);
  return stdout;
}

/** Polls `url` until it answers 200, or fails after `timeoutMs`. */
export async function waitForOk(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends SIGSTOP and waits until every thread of the process is stopped. kill() returns once the
 * signal is queued: the stop takes effect only when one of its threads is next scheduled, and on a
 * busy machine another thread can meanwhile answer a request (Linux: reads /proc/<pid>/task).
 */
export async function suspend(pid: number, timeoutMs = 60_000): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  const deadline = Date.now() + timeoutMs;
  while (!everyThreadStopped(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop within ${timeoutMs} ms`);
    await sleep(10);
  }
}

function everyThreadStopped(pid: number): boolean {
  const tasks = readdirSync(`/proc/${pid}/task`);
  // The state follows the command name, which is in parentheses and may itself hold spaces.
  const stopped = (tid: string) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]?.startsWith('T') === true;
    } catch {
      return true; // the thread ended meanwhile
    }
  };
  return tasks.every(stopped);
}

/**
 * Stops a process group as Ctrl-C in its terminal does (SIGINT to the group), waits up to 30 s for
 * every process of it to end, then kills what is left.
 */
export async function interruptGroup(pid: number): Promise<void> {
  signalGroup(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (signalGroup(pid, 0) && Date.now() < deadline) await sleep(200);
  signalGroup(pid, 'SIGKILL');
}

/** Signals the process group led by `pid`; false once no process of it is left. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
