/**
 * Streams a 1 GB video through POST /public/v1/media of a real, spawned Postdeck process and
 * reports the server's resident memory growth (must stay under 64 MB: the upload is streamed,
 * never held) and the throughput against a baseline measured in the same run: copying the same
 * file on the same disk with streams. Usage: npm run bench:upload (builds dist/ first).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded/index.js';
import { mp4Header } from '../test/support/video.js';
import { createLogger } from '../src/logger.js';

const FILE_BYTES = 1024 * 1024 * 1024;
const RSS_BUDGET_BYTES = 64 * 1024 * 1024;
const MB = 1024 * 1024;

async function main(): Promise<void> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  const work = mkdtempSync(path.join(os.tmpdir(), 'postdeck-bench-upload-'));
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
  const dbName = `bench_${randomUUID().slice(0, 8)}`;
  const port = await freePort();
  const env = {
    ...process.env,
    MONGODB_URI: uri,
    MONGODB_DB: dbName,
    DATA_DIR: path.join(work, 'data'),
    PORT: String(port),
    LOG_LEVEL: 'warn',
  };
  const server = spawn(process.execPath, ['bin/postdeck.js', 'serve'], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const file = path.join(work, 'video.mp4');
  try {
    await waitForOk(`http://127.0.0.1:${port}/healthz`);
    const bootstrap = execFileSync(process.execPath, ['bin/postdeck.js', 'admin', 'bootstrap', '--json'], { env });
    const { apiKey } = JSON.parse(bootstrap.toString()) as { apiKey: string };

    await writeVideo(file, FILE_BYTES);
    const copyStarted = performance.now();
    await pipeline(createReadStream(file), createWriteStream(path.join(work, 'data', 'copy.mp4')));
    const copySeconds = (performance.now() - copyStarted) / 1000;
    rmSync(path.join(work, 'data', 'copy.mp4'));

    // A small upload first, so the baseline RSS includes sharp, busboy and the warmed-up code paths.
    const warmup = path.join(work, 'warmup.mp4');
    await writeVideo(warmup, MB);
    await uploadFile(port, apiKey, warmup);
    await sleep(500);
    const before = rssOf(server.pid ?? 0);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server.pid ?? 0))), 20);
    const started = performance.now();
    const status = await uploadFile(port, apiKey, file);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);

    const growth = peak - before;
    const line = (label: string, value: string): void => console.log(`${label.padEnd(40)} ${value}`);
    line('database', embedded?.kind ?? 'MONGODB_URI');
    line('file', `${(FILE_BYTES / MB).toFixed(0)} MB`);
    line('upload answer', String(status));
    line(
      'baseline: stream copy on the same disk',
      `${(FILE_BYTES / MB / copySeconds).toFixed(0)} MB/s (${copySeconds.toFixed(1)} s)`,
    );
    line('upload through HTTP', `${(FILE_BYTES / MB / seconds).toFixed(0)} MB/s (${seconds.toFixed(1)} s)`);
    line('upload / baseline', `${(copySeconds / seconds).toFixed(2)}x the copy's throughput`);
    line('server RSS before / peak', `${(before / MB).toFixed(0)} MB / ${(peak / MB).toFixed(0)} MB`);
    line(
      'server RSS growth',
      `${(growth / MB).toFixed(1)} MB (budget ${RSS_BUDGET_BYTES / MB} MB): ${growth < RSS_BUDGET_BYTES ? 'PASS' : 'FAIL'}`,
    );
    if (status !== 201 || growth >= RSS_BUDGET_BYTES) process.exitCode = 1;
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await embedded?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** A parseable MP4 (ftyp and moov of one 10 s video track), then an mdat of incompressible filler up to `bytes`. */
async function writeVideo(file: string, bytes: number): Promise<void> {
  const header = mp4Header();
  const mdat = Buffer.alloc(8);
  mdat.writeUInt32BE(bytes - header.length, 0);
  mdat.write('mdat', 4, 'latin1');
  const chunk = randomBytes(MB);
  await pipeline(
    (function* () {
      yield Buffer.concat([header, mdat]);
      for (let written = header.length + mdat.length; written < bytes; written += chunk.length) {
        yield chunk.subarray(0, Math.min(chunk.length, bytes - written));
      }
    })(),
    createWriteStream(file),
  );
}

/** Streams `file` as a multipart upload from disk and resolves with the status code. */
function uploadFile(port: number, apiKey: string, file: string): Promise<number> {
  const boundary = `bench-${randomUUID()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="video.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = Number(execFileSync('stat', ['-c', '%s', file]).toString().trim());
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/public/v1/media',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + size + tail.length),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.write(head);
    const body = createReadStream(file);
    body.on('error', reject);
    body.on('end', () => req.end(tail));
    body.pipe(req, { end: false });
  });
}

/** The resident set size of a process, from /proc (Linux). */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function waitForOk(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
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
