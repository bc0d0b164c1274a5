// dist/ (the compiled server and CLI) kept in step with src/ in a checkout: built when a source is
// newer than the last build, never otherwise. A copy without src/ (the Docker image) runs dist/ as
// it ships.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
/** What the build reads besides src/. */
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json'].map((name) => path.join(ROOT, name));
/** Written after each successful build, dated when that build started (an edit during it counts as newer). */
const STAMP = path.join(DIST, '.built');
/** Held (with the builder's pid) while one process builds, so two commands started at once build once. */
const LOCK = path.join(DIST, '.building');
const requireHere = createRequire(path.join(ROOT, 'package.json'));

/** Why dist/ must be built before it runs, or null when it is current (or there is nothing to build from). */
export function staleReason() {
  if (!existsSync(SRC)) return null;
  if (!existsSync(path.join(DIST, 'cli', 'index.js'))) return 'dist/ is not built yet';
  const built = mtimeOf(STAMP);
  if (built === null) return 'dist/ has no record of a complete build';
  return newestSourceChange() > built ? 'src/ changed since the last build' : null;
}

/**
 * Builds dist/ with tsc, saying why on stderr (never stdout: `$(postdeck whoami --show-key)`); false
 * when the build failed. While another process builds, waits for it and builds only if still stale.
 */
export function buildDist(reason) {
  let tsc;
  try {
    tsc = requireHere.resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write(`postdeck: cannot build dist/ (${reason}): TypeScript is not installed; run npm ci\n`);
    return false;
  }
  if (!takeLock()) {
    const still = staleReason();
    if (!still) return true;
    return buildDist(still);
  }
  try {
    const startedAt = new Date();
    process.stderr.write(`postdeck: building dist/ (${reason}); this takes a minute…\n`);
    const result = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], {
      stdio: ['ignore', 2, 2],
    });
    if (result.status !== 0) {
      process.stderr.write('postdeck: the build of dist/ failed (above)\n');
      return false;
    }
    writeFileSync(STAMP, 'dist/ was built from src/ when this file is dated (bin/dist.js)\n');
    utimesSync(STAMP, startedAt, startedAt);
    return true;
  } finally {
    rmSync(LOCK, { force: true });
  }
}

/**
 * Builds dist/ first when it is stale; exits when that fails. `serve` first checks that this install
 * is not running already (as `postdeck serve` itself does), so a second start never rebuilds dist/
 * under a running server; the check runs from src/ through tsx, since dist/ is the stale part.
 */
export function ensureDist(command) {
  const reason = staleReason();
  if (!reason) return;
  if (command === 'serve') {
    const tsx = pathToFileURL(requireHere.resolve('tsx')).href;
    const check = spawnSync(process.execPath, ['--import', tsx, path.join(ROOT, 'tools', 'check-not-running.ts')], {
      stdio: 'inherit',
    });
    if (check.status !== 0) process.exit(check.status ?? 1);
  }
  if (!buildDist(reason)) process.exit(1);
}

/** True once this process holds the build lock; false after waiting for another builder to finish. */
function takeLock() {
  mkdirSync(DIST, { recursive: true });
  let told = false;
  for (;;) {
    try {
      writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = Number(readText(LOCK));
    if (!isAlive(holder)) {
      // Left by a build that died: the next one takes over.
      rmSync(LOCK, { force: true });
      continue;
    }
    if (!told) process.stderr.write(`postdeck: waiting for the build of dist/ under way (pid ${holder})…\n`);
    told = true;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    if (!existsSync(LOCK)) return false;
  }
}

function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function readText(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function mtimeOf(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/** The newest mtime of src/ (folders too: deleting or renaming a file changes its folder's) and the settings. */
function newestSourceChange() {
  let newest = Math.max(...SETTINGS.map((file) => mtimeOf(file) ?? 0));
  const visit = (dir) => {
    newest = Math.max(newest, statSync(dir).mtimeMs);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  visit(SRC);
  return newest;
}
