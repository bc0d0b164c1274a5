import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';

/** A spawned Postdeck process (`bin/postdeck.js serve --role …`), its log file and how it ended. */
export interface PostdeckProcess {
  readonly name: string;
  readonly role: 'api' | 'worker';
  readonly child: ChildProcess;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves when the process has exited (by signal or code). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `node bin/postdeck.js serve --role <role>` with `env`; stdout and stderr go to
 * `<logDir>/<name>.log` (appended, so restarts of one worker share a file).
 */
export function spawnPostdeck(
  name: string,
  role: 'api' | 'worker',
  env: NodeJS.ProcessEnv,
  logDir: string,
): PostdeckProcess {
  const logFile = path.join(logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  // BENCH_CPU_PROF=<dir> writes a CPU profile of each spawned process there when it exits.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, 'bin/postdeck.js', 'serve', '--role', role], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      log.end();
      resolve({ code, signal });
    }),
  );
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  return { name, role, child, pid: child.pid, logFile, exited };
}

/** Ends a process with `signal` and waits for its exit (SIGKILL: no shutdown code runs, as in a crash). */
export async function stopProcess(proc: PostdeckProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill(signal);
  await proc.exited;
}

/** The last lines of a process's log, for a failure report. */
export function tailOf(proc: PostdeckProcess, lines = 20): string {
  try {
    return readFileSync(proc.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
