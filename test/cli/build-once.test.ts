import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/spawn.js';

// dist/ is built once: by `npm ci` (its `prepare`) or by the first command in a fresh clone, and again
// only when a source is newer. Checked in a fresh clone of the commit under test, by what the commands
// print and by the dates of dist/'s files, never by how long they take.
let tmp: string;
let clone: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'postdeck-build-once-'));
  clone = path.join(tmp, 'postdeck');
  // The commit under test (CI runs in a fresh clone whose HEAD is it; locally, commit first).
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
  execFileSync('git', ['clone', '--quiet', root, clone]);
  execFileSync('git', ['-C', clone, 'checkout', '--quiet', '--detach', head]);
  // `npm ci`'s install, substituted: the same lock file is installed in this checkout.
  symlinkSync(realpathSync('node_modules'), path.join(clone, 'node_modules'));
  const { MONGODB_URI: _uri, PORT: _port, DATA_DIR: _dataDir, ...base } = process.env;
  env = { ...base, DATA_DIR: path.join(tmp, 'data'), POSTDECK_CONFIG_DIR: path.join(tmp, 'config') };
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Runs a command in the clone to its end; what it printed, both streams. */
async function run(command: string, args: string[], extraEnv: Record<string, string> = {}) {
  const child = spawn(command, args, { cwd: clone, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

const postdeck = (args: string[], extraEnv?: Record<string, string>) =>
  run(process.execPath, ['bin/postdeck.js', ...args], extraEnv);

/** Every file under dist/ with its mtime: unchanged means nothing was built. */
function distDates(): Record<string, number> {
  const dist = path.join(clone, 'dist');
  const dates: Record<string, number> = {};
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else dates[path.relative(dist, full)] = statSync(full).mtimeMs;
    }
  };
  visit(dist);
  return dates;
}

/** Dates a source file as edited now. */
function touch(relative: string): void {
  const now = new Date();
  utimesSync(path.join(clone, relative), now, now);
}

const BUILDING = 'postdeck: building dist/';

describe('dist/ is built once, and again only when a source changed', { timeout: 600_000 }, () => {
  it('the first command in a fresh clone builds dist/, then runs', async () => {
    const first = await postdeck(['help']);
    expect(first.output).toContain(`${BUILDING} (dist/ is not built yet)`);
    expect(first.output).toContain('Usage: postdeck <command>');
    expect(first.code).toBe(0);
    expect(Object.keys(distDates())).toContain(path.join('cli', 'index.js'));
  });

  it("a later command, `npm start` and `npm ci`'s prepare do not build a current dist/", async () => {
    const before = distDates();
    const again = await postdeck(['help']);
    expect(again).toMatchObject({ code: 0 });
    expect(again.output).not.toContain(BUILDING);

    // `npm start` gets as far as `postdeck serve` reading its settings (refused here), without a build.
    const start = await run('npm', ['start'], { PORT: 'not-a-port' });
    expect(start.code).not.toBe(0);
    expect(start.output).toContain('PORT: ');
    expect(start.output).not.toContain(BUILDING);
    expect(start.output).not.toContain('tsc -p');

    const prepare = await run('npm', ['run', 'prepare']);
    expect(prepare.code).toBe(0);
    expect(prepare.output).not.toContain(BUILDING);
    expect(distDates()).toEqual(before);
  });

  it('a second `serve` of a running install stops before building a stale dist/', async () => {
    touch('src/cli/start-message.ts');
    const before = distDates();
    const holder: Server = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const start = await run('npm', ['start'], { PORT: String(port) });
      expect(start.code).not.toBe(0);
      expect(start.output).toContain(`port ${port} is in use by another program`);
      expect(start.output).not.toContain(BUILDING);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    expect(distDates()).toEqual(before);
  });

  it('a command after a source changed rebuilds dist/ first, once for two started together', async () => {
    // Still stale from the step before: src/cli/start-message.ts is newer than the build.
    const before = distDates();
    const both = await Promise.all([postdeck(['help']), postdeck(['help'])]);
    for (const each of both) {
      expect(each.code).toBe(0);
      expect(each.output).toContain('Usage: postdeck <command>');
    }
    const builds = both.filter((each) => each.output.includes(`${BUILDING} (src/ changed since the last build)`));
    expect(builds).toHaveLength(1);
    const after = distDates();
    const changed = path.join('cli', 'start-message.js');
    expect(after[changed]).toBeGreaterThan(before[changed]!);

    // And once only.
    const again = await postdeck(['help']);
    expect(again.output).not.toContain(BUILDING);
    expect(distDates()).toEqual(after);
  });
});
