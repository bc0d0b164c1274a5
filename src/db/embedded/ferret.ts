import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from '../../logger.js';
import { terminateChild, waitForExit } from './proc.js';
import type { StartedDatabase } from './types.js';

const READY_TIMEOUT_MS = 30_000;
/** slog's text handler writes `level=ERROR`; Go runtime failures start with `panic:` or `fatal error:`. */
const LOOKS_LIKE_ERROR = /level=ERROR|^panic:|^fatal error:/;

interface FerretOptions {
  /** The emulator built by ensureFerretBinary. */
  binary: string;
  dataDir: string;
  logger: Logger;
  /** The loopback port to listen on; 0 (the default) lets the kernel pick one. */
  port?: number;
}

/**
 * Starts the FerretDB emulator on a free loopback port (or `port`, to start it again where it was)
 * with its SQLite files in `<dataDir>/ferretdb`, and resolves once it prints `ready <uri>`.
 */
export async function startFerret({ binary, dataDir, logger, port = 0 }: FerretOptions): Promise<StartedDatabase> {
  const dir = path.join(dataDir, 'ferretdb');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const log = logger.child({ database: 'ferretdb' });

  // detached: its own process group, so a Ctrl-C in the terminal (SIGINT to the whole foreground
  // group) reaches only Postdeck, which stops it last, after the work that still needs it.
  // stdin stays an open pipe for the child's whole life: the emulator exits when it closes,
  // which the kernel does for us even if this process is SIGKILLed, so it never outlives us.
  const child = spawn(binary, ['-listen', `127.0.0.1:${port}`, '-data', dir], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdin.on('error', () => undefined); // EPIPE after the child exits is expected
  const exited = waitForExit(child);

  let stderrTail = '';
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderrTail = `${stderrTail}${line}\n`.slice(-2_000);
    // FerretDB warns about routine things (unsupported commands, telemetry); only errors deserve warn.
    if (LOOKS_LIKE_ERROR.test(line)) log.warn({ line }, 'FerretDB stderr');
    else log.debug({ line }, 'FerretDB stderr');
  });

  const uri = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`FerretDB did not report ready within ${READY_TIMEOUT_MS / 1000} s: ${stderrTail.trim()}`));
    }, READY_TIMEOUT_MS);
    let ready = false;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!ready && line.startsWith('ready ')) {
        ready = true;
        clearTimeout(timer);
        resolve(line.slice('ready '.length).trim());
      } else {
        log.debug({ line }, 'FerretDB stdout');
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run the FerretDB emulator ${binary}: ${error.message}`));
    });
    // 'close' rather than 'exit': it comes after stderr is drained, so the message has the reason.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (!ready)
        reject(new Error(`FerretDB exited before it was ready (${signal ?? `exit ${code}`}): ${stderrTail.trim()}`));
    });
  }).catch(async (error: unknown) => {
    await terminateChild(child);
    throw error;
  });

  let stopping: Promise<void> | undefined;
  return {
    kind: 'ferretdb',
    uri,
    pid: child.pid,
    exited,
    stop: () => (stopping ??= terminateChild(child)),
    expectExit: () => stopping !== undefined,
  };
}
