/**
 * Sends image bombs (a 31 KB 1-bit PNG of 16000×16000, issue 32) to POST /public/v1/media of a real,
 * spawned Postdeck process and reports the server's peak resident memory growth: one bomb, eight at
 * once, and as the baseline of the same run an ordinary 12 MP JPEG (4000×3000). Also eight such
 * JPEGs at once and the largest PNG accepted (a 49 MP one, converted to JPEG). Each case gets a fresh,
 * warmed-up server, so every growth is measured from the same state. Budget: under 256 MB for both
 * bomb cases. Usage: npm run bench:decode (builds dist/ first).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded/index.js';
import { createLogger } from '../src/logger.js';
import { pngBomb } from '../test/support/image-bomb.js';

const MB = 1024 * 1024;
const BOMB_BUDGET_BYTES = 256 * MB;

interface Case {
  label: string;
  file: Buffer;
  name: string;
  copies: number;
  bomb: boolean;
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  const work = mkdtempSync(path.join(os.tmpdir(), 'postdeck-bench-decode-'));
  let embedded: EmbeddedDatabase | undefined;
  let uri = process.env.MONGODB_URI;
  if (!uri) {
    embedded = await openEmbeddedDatabase({
      dataDir: path.join(work, 'db'),
      cacheDir: path.resolve('.cache/ferretdb'),
      logger: createLogger({ level: 'warn', destination: process.stderr }),
    });
    uri = embedded.uri;
  }
  const env = {
    ...process.env,
    MONGODB_URI: uri,
    MONGODB_DB: `bench_${randomUUID().slice(0, 8)}`,
    DATA_DIR: path.join(work, 'data'),
    LOG_LEVEL: 'warn',
  };
  try {
    const photo = await photoJpeg(4000, 3000);
    const bomb = pngBomb();
    const largestPng = pngBomb(7000, 7000);
    const cases: Case[] = [
      { label: 'baseline: one 12 MP JPEG', file: photo, name: 'photo.jpg', copies: 1, bomb: false },
      { label: 'one bomb', file: bomb, name: 'bomb.png', copies: 1, bomb: true },
      { label: 'eight bombs at once', file: bomb, name: 'bomb.png', copies: 8, bomb: true },
      { label: 'eight 12 MP JPEGs at once', file: photo, name: 'photo.jpg', copies: 8, bomb: false },
      { label: 'one 49 MP 1-bit PNG (largest accepted)', file: largestPng, name: 'big.png', copies: 1, bomb: false },
    ];
    const line = (label: string, value: string): void => console.log(`${label.padEnd(44)} ${value}`);
    line('database', embedded?.kind ?? 'MONGODB_URI');
    line(
      'cores / load average',
      `${os.availableParallelism()} / ${os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
    line('files', `JPEG ${kb(photo)} KB, bomb ${kb(bomb)} KB, 49 MP PNG ${kb(largestPng)} KB`);
    let apiKey: string | undefined;
    let baseline = 0;
    let failed = false;
    for (const [index, item] of cases.entries()) {
      const server = await startServer(env);
      try {
        apiKey ??= bootstrap(env);
        const result = await measure(server, apiKey, item);
        if (index === 0) baseline = Math.max(result.growth, 1);
        const ratio = (result.growth / baseline).toFixed(2);
        const verdict = item.bomb ? (result.growth < BOMB_BUDGET_BYTES ? ' PASS' : ' FAIL') : '';
        if (item.bomb && result.growth >= BOMB_BUDGET_BYTES) failed = true;
        line(
          item.label,
          `answers ${result.statuses.join(',')}; RSS ${mb(result.before)} -> peak ${mb(result.peak)} MB; growth ${mb(result.growth)} MB (${ratio}x the baseline)${verdict}`,
        );
      } finally {
        await stopServer(server.child);
      }
    }
    line('budget', `peak growth under ${BOMB_BUDGET_BYTES / MB} MB for the bomb cases`);
    if (failed) process.exitCode = 1;
  } finally {
    await embedded?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** A photo-like JPEG: smooth colour fields (a small random image scaled up) with fine grain, at quality 90. */
async function photoJpeg(width: number, height: number): Promise<Buffer> {
  const small = Buffer.from(Array.from({ length: 40 * 30 * 3 }, () => Math.floor(Math.random() * 256)));
  const fields = await sharp(small, { raw: { width: 40, height: 30, channels: 3 } })
    .resize(width, height)
    .raw()
    .toBuffer();
  for (let i = 0; i < fields.length; i++) fields[i] = Math.max(0, Math.min(255, fields[i]! + Math.random() * 16 - 8));
  return sharp(fields, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

interface Running {
  child: ChildProcess;
  port: number;
}

async function startServer(env: NodeJS.ProcessEnv): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/postdeck.js', 'serve'], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitForOk(`http://127.0.0.1:${port}/healthz`);
  return { child, port };
}

function bootstrap(env: NodeJS.ProcessEnv): string {
  const out = execFileSync(process.execPath, ['bin/postdeck.js', 'admin', 'bootstrap', '--json'], { env });
  return (JSON.parse(out.toString()) as { apiKey: string }).apiKey;
}

/** Warms the server with a small upload, then sends the case's copies at once while sampling RSS every 20 ms. */
async function measure(server: Running, apiKey: string, item: Case) {
  const warmup = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#888' } })
    .jpeg()
    .toBuffer();
  await uploadBytes(server.port, apiKey, warmup, 'warmup.jpg');
  await sleep(500);
  const pid = server.child.pid ?? 0;
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
  const statuses = await Promise.all(
    Array.from({ length: item.copies }, () => uploadBytes(server.port, apiKey, item.file, item.name)),
  );
  await sleep(200);
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  return { statuses: [...new Set(statuses)], before, peak, growth: peak - before };
}

async function uploadBytes(port: number, apiKey: string, bytes: Buffer, name: string): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  const response = await fetch(`http://127.0.0.1:${port}/public/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  await response.arrayBuffer();
  return response.status;
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The resident set size of a process, from /proc (Linux). */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

const mb = (bytes: number): string => (bytes / MB).toFixed(0);
const kb = (bytes: Buffer): string => (bytes.length / 1024).toFixed(0);

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function waitForOk(url: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`${url} never answered`);
}

await main();
