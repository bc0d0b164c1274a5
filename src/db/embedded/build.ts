import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  access,
  chmod,
  constants,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  unlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../logger.js';
import { acquireLock } from './lock.js';

/** The files that define the emulator; their hash names the binary, so editing one rebuilds it. */
const SOURCE_FILES = ['main.go', 'go.mod', 'go.sum', 'patches.json'] as const;
const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';
/** Part of the binary's name too: bump it when the build steps below change, so cached binaries are rebuilt. */
const BUILD_RECIPE = 'patched-2';
const BUILD_TIMEOUT_MS = 15 * 60_000;
const PROGRESS_EVERY_MS = 20_000;

/** Builds in flight in this process, so concurrent callers share one `go build`. */
const inFlight = new Map<string, Promise<string>>();

/**
 * Returns the path of the FerretDB emulator binary in `cacheDir`, building it from
 * `tools/ferretdb` with the local Go toolchain on first use (about a minute).
 */
export async function ensureFerretBinary(cacheDir: string, logger: Logger): Promise<string> {
  const sourceDir = findSourceDir();
  const hash = createHash('sha256').update(`${BUILD_RECIPE}\0`);
  for (const name of SOURCE_FILES) {
    hash
      .update(`${name}\0`)
      .update(await readFile(path.join(sourceDir, name)))
      .update('\0');
  }
  // Platform and arch are in the name too: a cache dir may be shared between a host and a container.
  const exe = process.platform === 'win32' ? '.exe' : '';
  const binary = path.join(
    cacheDir,
    `ferretdb-${process.platform}-${process.arch}-${hash.digest('hex').slice(0, 16)}${exe}`,
  );
  if (await isExecutable(binary)) return binary;

  let pending = inFlight.get(binary);
  if (!pending) {
    pending = buildOnce(sourceDir, binary, logger).finally(() => inFlight.delete(binary));
    inFlight.set(binary, pending);
  }
  return pending;
}

/** Walks up from this module (src/… or dist/…) to the directory holding tools/ferretdb. */
function findSourceDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i += 1) {
    const candidate = path.join(dir, 'tools', 'ferretdb');
    if (existsSync(path.join(candidate, 'go.mod'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error('cannot find tools/ferretdb (the FerretDB emulator sources) above ' + fileURLToPath(import.meta.url));
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function buildOnce(sourceDir: string, binary: string, logger: Logger): Promise<string> {
  await mkdir(path.dirname(binary), { recursive: true });
  // The lock only saves a second process (another vitest worker, the CLI) from building the same
  // thing twice on a small machine; correctness comes from the unique temp file + atomic rename.
  const release = await acquireLock(`${binary}.lock`, {
    timeoutMs: BUILD_TIMEOUT_MS,
    purpose: 'building the FerretDB emulator',
    onWait: (pid) => logger.info({ pid }, 'waiting for another process that is building the FerretDB emulator'),
  });
  try {
    if (await isExecutable(binary)) return binary;
    const temp = `${binary}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await buildPatched(sourceDir, temp, logger);
      await chmod(temp, 0o755);
      await rename(temp, binary);
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    return binary;
  } finally {
    await release();
  }
}

/** One edit of a FerretDB source file (tools/ferretdb/patches.json); `find` must occur `occurrences` times (1). */
interface SourcePatch {
  why: string;
  file: string;
  find: string;
  replace: string;
  occurrences?: number;
}

/**
 * Builds in a scratch copy: tools/ferretdb's files, plus the FerretDB module from Go's module cache with
 * patches.json applied and a `replace` pointing at it. The module cache itself is read-only and stays as is.
 */
async function buildPatched(sourceDir: string, output: string, logger: Logger): Promise<void> {
  const workDir = await mkdtemp(path.join(path.dirname(output), 'ferretdb-build-'));
  try {
    for (const name of SOURCE_FILES) await cp(path.join(sourceDir, name), path.join(workDir, name));
    await runGo(workDir, ['mod', 'download', FERRETDB_MODULE], logger, 'downloading FerretDB');
    const moduleDir = (await runGo(workDir, ['list', '-m', '-f', '{{.Dir}}', FERRETDB_MODULE], logger)).trim();
    const patchedDir = path.join(workDir, 'ferretdb-patched');
    await cp(moduleDir, patchedDir, { recursive: true });
    await makeWritable(patchedDir);
    const patches = JSON.parse(await readFile(path.join(sourceDir, 'patches.json'), 'utf8')) as SourcePatch[];
    for (const patch of patches) await applyPatch(patchedDir, patch);
    await runGo(workDir, ['mod', 'edit', `-replace=${FERRETDB_MODULE}=./ferretdb-patched`], logger);
    await runGo(workDir, ['build', '-trimpath', '-ldflags=-s -w', '-o', output, '.'], logger, 'building');
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The module cache's files and directories are read-only, and cp keeps modes: patching and clean-up need write. */
async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    await chmod(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
  }
}

async function applyPatch(moduleDir: string, patch: SourcePatch): Promise<void> {
  const file = path.join(moduleDir, patch.file);
  const source = await readFile(file, 'utf8');
  const expected = patch.occurrences ?? 1;
  if (source.split(patch.find).length !== expected + 1) {
    throw new Error(
      `cannot patch FerretDB: ${patch.file} does not contain ${JSON.stringify(patch.find)} exactly ${expected} time(s)`,
    );
  }
  await writeFile(
    file,
    source.replaceAll(patch.find, () => patch.replace),
  );
}

/** Runs `go <args>` in `cwd` and returns its stdout; `step` names a long step that logs its progress. */
function runGo(cwd: string, args: string[], logger: Logger, step?: string): Promise<string> {
  const started = Date.now();
  const child = spawn('go', args, {
    cwd,
    // GOTOOLCHAIN=local: never fetch another Go toolchain behind the user's back.
    // CGO_ENABLED=0: FerretDB's SQLite is pure Go, so no C compiler is needed.
    env: { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let tail = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4_000);
  });
  // Logged on 'spawn', so a missing `go` reports only the error, not a step that never began.
  if (step) {
    child.once('spawn', () => logger.info({ step }, 'FerretDB emulator, first run only (about a minute in all)...'));
  }
  const progress = setInterval(() => {
    if (step)
      logger.info({ step, seconds: Math.round((Date.now() - started) / 1000) }, 'FerretDB emulator: still at it...');
  }, PROGRESS_EVERY_MS);
  const timeout = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);

  return new Promise<string>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new Error(
              'the Go toolchain (`go`, 1.24 or newer) is not on PATH, and it is needed to build the FerretDB emulator',
            )
          : error,
      );
    });
    child.once('close', (code, signal) => {
      if (code === 0) {
        if (step === 'building') {
          logger.info({ seconds: Math.round((Date.now() - started) / 1000) }, 'built the FerretDB emulator');
        }
        resolve(stdout);
      } else {
        reject(
          new Error(`go ${args[0]} for the FerretDB emulator failed (${signal ?? `exit ${code}`}): ${tail.trim()}`),
        );
      }
    });
  }).finally(() => {
    clearInterval(progress);
    clearTimeout(timeout);
  });
}
