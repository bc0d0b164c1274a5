/**
 * npm run bench:compare -- <base-commit> <bench>: runs `npm run bench:<bench>` on a clean copy of
 * <base-commit> (git archive into .cache/bench-compare/<commit>, node_modules linked when its
 * package-lock.json equals this tree's, else `npm ci` there once), then on the working tree, one after
 * the other on this machine, and prints both runs' key figures and their ratio (today / base). A key
 * figure more than 1.2x worse is a regression: the exit code is 1. Figures are read from the
 * `BENCH_SUMMARY {json}` line a bench prints, or from its text lines when the base predates it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseSummary, type Figures } from './support/summary.js';

const WORSE_THAN = 1.2;

/** A figure the comparison judges: lower or higher is better. */
interface KeyFigure {
  name: string;
  better: 'lower' | 'higher';
}

/** Per bench: its key figures, and how to read them from text output that has no summary line. */
const BENCHES: Record<string, { keys: KeyFigure[]; fromText(output: string): Figures }> = {
  latency: {
    keys: [
      { name: 'init_p50_ms', better: 'lower' },
      { name: 'init_p99_ms', better: 'lower' },
      { name: 'init_max_ms', better: 'lower' },
      { name: 'claimed_p50_ms', better: 'lower' },
      { name: 'claimed_p99_ms', better: 'lower' },
    ],
    fromText(output) {
      const init = /latency: init received − scheduledFor\s+p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms/.exec(
        output,
      );
      const claimed = /due → claimed\s+p50 ([\d.]+) ms, p99 ([\d.]+) ms/.exec(output);
      return {
        ...(init ? { init_p50_ms: +init[1]!, init_p99_ms: +init[2]!, init_max_ms: +init[3]! } : {}),
        ...(claimed ? { claimed_p50_ms: +claimed[1]!, claimed_p99_ms: +claimed[2]! } : {}),
      };
    },
  },
  'auth-path': {
    keys: [
      { name: 'postdeck_req_per_s', better: 'higher' },
      { name: 'postdeck_p50_ms', better: 'lower' },
      { name: 'postdeck_p99_ms', better: 'lower' },
      { name: 'postdeck_of_raw', better: 'higher' },
    ],
    fromText(output) {
      const route = (label: string) =>
        new RegExp(`${label}\\s+([\\d.]+) req/s\\s+at \\d+/s: p50 ([\\d.]+) ms, p99 ([\\d.]+) ms`).exec(output);
      const ours = route('Postdeck GET /platforms');
      const raw = route('raw-driver route');
      return {
        ...(ours ? { postdeck_req_per_s: +ours[1]!, postdeck_p50_ms: +ours[2]!, postdeck_p99_ms: +ours[3]! } : {}),
        ...(raw ? { raw_req_per_s: +raw[1]!, raw_p99_ms: +raw[3]! } : {}),
        ...(ours && raw ? { postdeck_of_raw: +ours[1]! / +raw[1]! } : {}),
      };
    },
  },
  upload: {
    keys: [
      { name: 'upload_mb_per_s', better: 'higher' },
      { name: 'rss_growth_mb', better: 'lower' },
    ],
    fromText(output) {
      const speed = /upload through HTTP\s+([\d.]+) MB\/s/.exec(output);
      const copy = /baseline: stream copy on the same disk\s+([\d.]+) MB\/s/.exec(output);
      const growth = /server RSS growth\s+([\d.]+) MB/.exec(output);
      return {
        ...(speed ? { upload_mb_per_s: +speed[1]! } : {}),
        ...(copy ? { copy_mb_per_s: +copy[1]! } : {}),
        ...(growth ? { rss_growth_mb: +growth[1]! } : {}),
      };
    },
  },
};

async function main(): Promise<void> {
  const [base, bench] = process.argv.slice(2);
  if (!base || !bench) {
    console.error('usage: npm run bench:compare -- <base-commit> <bench>   (bench: latency, auth-path, …)');
    process.exit(2);
  }
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  if (!scripts[`bench:${bench}`]) throw new Error(`no npm script bench:${bench} in this tree`);
  const commit = git(['rev-parse', '--verify', `${base}^{commit}`]).trim();
  const baseDir = prepareBase(commit);

  console.log(`== base ${commit.slice(0, 7)}: npm run bench:${bench} (in ${baseDir})`);
  const before = await runBench(baseDir, bench);
  console.log(`== working tree (${git(['rev-parse', '--short', 'HEAD']).trim()} + changes): npm run bench:${bench}`);
  const after = await runBench(process.cwd(), bench);

  const spec = BENCHES[bench];
  const baseFigures = parseSummary(before.output) ?? spec?.fromText(before.output) ?? {};
  const ourFigures = parseSummary(after.output) ?? spec?.fromText(after.output) ?? {};
  console.log(`\n== bench:${bench}, base ${commit.slice(0, 7)} against the working tree (load ${loadAverage()})`);
  console.log(`exit codes: base ${before.code}, working tree ${after.code}`);
  const names = [...new Set([...Object.keys(baseFigures), ...Object.keys(ourFigures)])];
  const worse: string[] = [];
  for (const name of names) {
    const was = baseFigures[name];
    const now = ourFigures[name];
    const key = spec?.keys.find((k) => k.name === name);
    const ratio = was !== undefined && now !== undefined && was !== 0 ? now / was : Number.NaN;
    // "Worse by" is the factor in the figure's bad direction: 2x slower, or half the throughput.
    const worseBy = key ? (key.better === 'lower' ? ratio : 1 / ratio) : Number.NaN;
    const verdict = !key ? '' : Number.isNaN(worseBy) ? 'missing' : worseBy > WORSE_THAN ? 'WORSE' : 'ok';
    if (key && verdict !== 'ok') worse.push(name);
    console.log(
      `${name.padEnd(22)} base ${fmt(was).padStart(10)}   now ${fmt(now).padStart(10)}   now/base ${
        Number.isNaN(ratio) ? 'n/a' : `${ratio.toFixed(2)}x`
      }${key ? ` (${key.better} is better) ${verdict}` : ''}`,
    );
  }
  console.log(
    `BENCH_COMPARE ${JSON.stringify({ bench, base: commit, load: loadAverage(), before: baseFigures, after: ourFigures, worse })}`,
  );
  if (!spec) console.log(`(no key figures declared for bench:${bench} in bench/compare.ts: ratios only)`);
  console.log(
    worse.length === 0
      ? `result: no key figure worse than ${WORSE_THAN}x the base`
      : `result: ${worse.join(', ')} worse than ${WORSE_THAN}x the base (or missing): a regression to fix or explain`,
  );
  if (worse.length > 0) process.exitCode = 1;
}

/** A ready copy of `commit`: its files, dependencies and the shared FerretDB build. Reused by later runs. */
function prepareBase(commit: string): string {
  const dir = path.resolve('.cache/bench-compare', commit);
  const ready = path.join(dir, '.bench-compare-ready');
  if (existsSync(ready)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = path.join(os.tmpdir(), `postdeck-${commit}.tar`);
  git(['archive', '--format=tar', '-o', archive, commit]);
  execFileSync('tar', ['-xf', archive, '-C', dir]);
  rmSync(archive, { force: true });
  const baseLock = readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
  if (baseLock === readFileSync('package-lock.json', 'utf8')) {
    symlinkSync(realpathSync('node_modules'), path.join(dir, 'node_modules'));
    console.log('base: package-lock.json identical, node_modules linked');
  } else {
    console.log('base: package-lock.json differs, npm ci in the base copy (once)');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  }
  // The embedded FerretDB is built once per machine; the base uses the same build.
  if (existsSync('.cache/ferretdb')) {
    mkdirSync(path.join(dir, '.cache'), { recursive: true });
    symlinkSync(realpathSync('.cache/ferretdb'), path.join(dir, '.cache/ferretdb'));
  }
  execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'inherit' });
  writeFileSync(ready, `${new Date().toISOString()}\n`);
  return dir;
}

/** Runs the bench in `cwd`, its output shown as it comes and kept for parsing. */
function runBench(cwd: string, bench: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', `bench:${bench}`], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

function git(args: string[]): string {
  return execFileSync('git', args, { encoding: 'utf8' });
}

function loadAverage(): string {
  return `${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores`;
}

function fmt(value: number | undefined): string {
  if (value === undefined) return 'n/a';
  return Number.isInteger(value) || Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2);
}

await main();
