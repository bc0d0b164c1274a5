/**
 * npm run bench:cli-start [-- <commit> ...]: how long the README's commands take to start, each in a
 * fresh clone of a commit (default HEAD; several: one after the other, then side by side) with this
 * checkout's node_modules linked in as `npm ci` would install them, after its set-up (`npm run
 * prepare`, what `npm ci` runs last). Each command runs RUNS times (env BENCH_RUNS, default 5) after
 * one warm-up (where `npx` installs the checkout into its cache); figures are the median and the range
 * of whole-process times, and the median against `node -e ''` measured in the same run, since this
 * machine's speed drifts with its load.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { saveCredentials } from '../src/cli/credentials.js';
import { printSummary } from './support/summary.js';
import { freePort, percentile } from './support/util.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const RUNNING = /^Postdeck is running at /m;

/** One README command: run to its end, or (a server) until it prints that it runs, then stopped. */
interface Command {
  label: string;
  argv: string[];
  until?: RegExp;
}

const COMMANDS: Command[] = [
  { label: "node -e ''", argv: ['node', '-e', ''] },
  { label: 'node bin/postdeck.js help', argv: ['node', 'bin/postdeck.js', 'help'] },
  { label: 'node bin/postdeck.js whoami --show-key', argv: ['node', 'bin/postdeck.js', 'whoami', '--show-key'] },
  { label: 'npx postdeck whoami --show-key', argv: ['npx', 'postdeck', 'whoami', '--show-key'] },
  { label: 'npm start (until "Postdeck is running")', argv: ['npm', 'start'], until: RUNNING },
  { label: 'node bin/postdeck.js serve (same)', argv: ['node', 'bin/postdeck.js', 'serve'], until: RUNNING },
];

interface Measured {
  label: string;
  /** The warm-up: a first run (npx installs the checkout into its cache then). */
  first: number;
  ms: number[];
}

async function main(): Promise<void> {
  const commits = process.argv.slice(2);
  const results = new Map<string, Measured[]>();
  for (const commit of commits.length > 0 ? commits : ['HEAD']) {
    const sha = execFileSync('git', ['rev-parse', '--verify', `${commit}^{commit}`], { encoding: 'utf8' }).trim();
    results.set(sha.slice(0, 7), await benchCommit(sha));
  }
  if (results.size > 1) compare(results);
  const last = [...results.values()].at(-1)!;
  const median = (label: string) => percentile(last.find((m) => m.label === label)!.ms, 50);
  printSummary('cli-start', {
    node_ms: median(COMMANDS[0]!.label),
    help_ms: median(COMMANDS[1]!.label),
    whoami_ms: median(COMMANDS[2]!.label),
    npx_whoami_ms: median(COMMANDS[3]!.label),
    npm_start_ms: median(COMMANDS[4]!.label),
  });
}

async function benchCommit(sha: string): Promise<Measured[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'postdeck-bench-cli-'));
  try {
    const clone = path.join(tmp, 'postdeck');
    execFileSync('git', ['clone', '--quiet', process.cwd(), clone]);
    execFileSync('git', ['-C', clone, 'checkout', '--quiet', '--detach', sha]);
    symlinkSync(realpathSync('node_modules'), path.join(clone, 'node_modules'));
    const configDir = path.join(tmp, 'config');
    await saveCredentials(configDir, {
      server: 'http://localhost:8080',
      apiKey: 'service_sk_benchclistart000000000000',
      workspaceId: 'bench',
      workspaceName: 'Bench',
      savedAt: new Date().toISOString(),
    });
    // A person's shell: none of the settings of the environment this runs in, no node_modules/.bin on PATH.
    const pathDirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => !dir.includes('node_modules'));
    const env: NodeJS.ProcessEnv = {
      HOME: process.env.HOME,
      PATH: [path.dirname(process.execPath), ...pathDirs].join(path.delimiter),
      POSTDECK_CONFIG_DIR: configDir,
      FERRETDB_CACHE_DIR: path.resolve('.cache/ferretdb'),
      npm_config_cache: path.join(tmp, 'npm-cache'),
      npm_config_update_notifier: 'false',
    };
    mkdirSync(env.npm_config_cache!, { recursive: true });

    const setUp = await timed({ label: 'set-up', argv: ['npm', 'run', 'prepare'] }, clone, env);
    console.log(
      `\n== ${sha.slice(0, 7)} in a fresh clone; set-up (npm run prepare, npm ci's last step): ${sec(setUp)}`,
    );
    const measured: Measured[] = [];
    for (const command of COMMANDS) {
      const ms: number[] = [];
      let first = 0;
      for (let run = 0; run <= RUNS; run += 1) {
        // A server gets a port and data directory of its own each run (a fresh install every time).
        const serverEnv = command.until
          ? { ...env, PORT: String(await freePort()), DATA_DIR: path.join(tmp, `data-${run}`) }
          : env;
        const took = await timed(command, clone, serverEnv);
        if (run > 0) ms.push(took);
        else first = took;
      }
      measured.push({ label: command.label, first, ms });
    }
    const base = percentile(measured[0]!.ms, 50);
    console.log(`runs: ${RUNS} after a first one; median (min–max), the median against node -e '', the first`);
    for (const { label, first, ms } of measured) {
      const median = percentile(ms, 50);
      console.log(
        `${label.padEnd(44)} ${sec(median).padStart(8)} (${sec(Math.min(...ms))}–${sec(Math.max(...ms))})` +
          `  ${(median / base).toFixed(1).padStart(6)}x   first ${sec(first)}`,
      );
    }
    return measured;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Milliseconds from spawn to exit (or to `until` in its output, then Ctrl-C to its process group). */
async function timed(command: Command, cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(command.argv[0]!, command.argv.slice(1), {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let reached: number | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      if (command.until && reached === undefined && command.until.test(output)) {
        reached = performance.now();
        process.kill(-child.pid!, 'SIGINT');
        resolve();
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    void exited.then((code) => {
      if (reached !== undefined) return;
      if (command.until || code !== 0) reject(new Error(`${command.argv.join(' ')} exited ${code}:\n${output}`));
      else resolve();
    });
  });
  const ended = reached ?? performance.now();
  await exited;
  return ended - started;
}

function compare(results: Map<string, Measured[]>): void {
  const [first, ...rest] = [...results.entries()];
  const [baseSha, base] = first!;
  console.log(`\n== medians side by side, and against ${baseSha}`);
  for (const [index, { label, ms }] of base.entries()) {
    const was = percentile(ms, 50);
    const cells = rest.map(([sha, measured]) => {
      const now = percentile(measured[index]!.ms, 50);
      return `${sha} ${sec(now).padStart(8)} (${(now / was).toFixed(2)}x)`;
    });
    console.log(`${label.padEnd(44)} ${baseSha} ${sec(was).padStart(8)}   ${cells.join('   ')}`);
  }
}

function sec(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

await main();
