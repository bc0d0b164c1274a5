import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openEmbeddedDatabase } from '../../src/db/embedded/index.js';
import { createLogger } from '../../src/logger.js';
import { MongoClient } from 'mongodb';
import {
  freePort,
  isAlive,
  runPostdeck,
  spawnLogged,
  spawnPostdeck,
  waitForOk,
  type SpawnedPostdeck,
} from '../support/spawn.js';

// Ctrl-C as a person gives it: SIGINT to the terminal's whole foreground process group, which a
// command spawned detached leads, with an upload under way. Real server, real embedded FerretDB.
const STARTUP_MS = 180_000;
const EXIT_MS = 120_000;

const tempDirs: string[] = [];
const started: SpawnedPostdeck[] = [];
let jpeg: Buffer;

beforeAll(async () => {
  // About 18 MB of noise, the size of a phone photo at full quality: slow to send and to preview.
  const side = 3600;
  jpeg = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .jpeg({ quality: 100 })
    .toBuffer();
}, 120_000);

afterAll(async () => {
  for (const server of started) {
    if (server.child.exitCode === null && server.child.pid !== undefined) {
      killGroup(server.child.pid, 'SIGKILL');
      await server.exited;
    }
  }
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

async function newInstall(
  extra: Record<string, string> = {},
): Promise<{ env: Record<string, string>; dataDir: string; port: number }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-ctrl-c-'));
  tempDirs.push(dataDir);
  const port = await freePort();
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    FERRETDB_CACHE_DIR: inject('ferretCacheDir'),
    EMBEDDED_DB: 'ferretdb',
    LOG_LEVEL: 'info',
    ...extra,
  };
  return { env, dataDir, port };
}

async function startServer(name: string, env: Record<string, string>, port: number): Promise<SpawnedPostdeck> {
  const server = spawnPostdeck(name, ['serve'], env, { detached: true });
  started.push(server);
  await waitForOk(`http://127.0.0.1:${port}/healthz`, STARTUP_MS);
  return server;
}

/** An upload whose body is sent in two halves, the second when the test says. */
function startUpload(
  port: number,
  apiKey: string,
): { sendRest(): void; answer: Promise<{ status: number; body: string }> } {
  const boundary = `----postdeck${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\n` +
        'Content-Type: image/jpeg\r\n\r\n',
    ),
    jpeg,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/public/v1/media',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': body.length,
    },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      response.once('error', reject);
    });
    request.on('error', reject);
  });
  const half = Math.floor(body.length / 2);
  request.write(body.subarray(0, half));
  return { sendRest: () => request.end(body.subarray(half)), answer };
}

async function waitFor(output: () => string, text: string): Promise<void> {
  const deadline = Date.now() + EXIT_MS;
  while (!output().includes(text)) {
    if (Date.now() > deadline) throw new Error(`no "${text}" in the output:\n${output()}`);
    await sleep(50);
  }
}

/** The embedded database's pid and its owner's (the Postdeck server), from the install's registry. */
function embeddedDatabase(dataDir: string): { pid: number; ownerPid: number } {
  return JSON.parse(readFileSync(path.join(dataDir, 'embedded-db.json'), 'utf8')) as { pid: number; ownerPid: number };
}

/** Every file in the media dir (the partial-write dir included). */
function mediaFiles(dataDir: string): { stored: string[]; partial: string[] } {
  const dir = path.join(dataDir, 'media');
  const stored = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== '.tmp')
    .flatMap((shard) => readdirSync(path.join(dir, shard.name)));
  return { stored, partial: readdirSync(path.join(dir, '.tmp')) };
}

/** The storage keys the install's media records name, read from its database after it stopped. */
async function recordedKeys(dataDir: string): Promise<Set<string>> {
  const logger = createLogger({ level: 'silent', destination: process.stderr });
  const database = await openEmbeddedDatabase({
    dataDir,
    cacheDir: inject('ferretCacheDir'),
    logger,
    prefer: 'ferretdb',
  });
  const client = new MongoClient(database.uri);
  try {
    const keys = new Set<string>();
    const docs = client
      .db('postdeck')
      .collection<{ storageKey: string; preview: { storageKey: string } | null }>('media');
    for await (const doc of docs.find({})) {
      keys.add(doc.storageKey);
      if (doc.preview) keys.add(doc.preview.storageKey);
    }
    return keys;
  } finally {
    await client.close();
    await database.stop();
  }
}

/** The lines printed from the signal on, and the checks every expected shutdown passes. */
function expectQuietShutdown(output: string): string[] {
  const lines = output.slice(output.indexOf('"shutting down"')).split('\n').filter(Boolean);
  expect(output).not.toMatch(/\n\s+at /); // no stack trace
  expect(output).not.toContain('"stack"');
  expect(output).not.toMatch(/"level":(50|60)/); // nothing at error level
  expect(output).toContain('"msg":"stopped"');
  expect(lines.length).toBeLessThanOrEqual(8);
  return lines;
}

/**
 * Ctrl-C with an upload half sent: SIGINT to the group, then (as `npm start` does) a second copy a
 * moment later, which the kernel would merge with the first if sent together; the rest of the body
 * follows once the server says it is shutting down. Checks the upload was recorded and nothing else stayed.
 */
async function ctrlCDuringUpload(
  groupPid: number,
  port: number,
  env: Record<string, string>,
  output: () => string,
): Promise<string> {
  const { apiKey } = JSON.parse(await runPostdeck(['admin', 'bootstrap', '--json'], env)) as { apiKey: string };
  const upload = startUpload(port, apiKey);
  await sleep(500);
  killGroup(groupPid, 'SIGINT');
  await sleep(50);
  killGroup(groupPid, 'SIGINT');
  await waitFor(output, '"shutting down"');
  upload.sendRest();
  const answer = await upload.answer;
  expect(answer.status).toBe(201);
  return (JSON.parse(answer.body) as { storageKey: string }).storageKey;
}

/** After the server stopped: no partial write, the upload's bytes kept, and every stored file recorded. */
async function expectNothingUnrecorded(dataDir: string, uploaded: string): Promise<void> {
  const files = mediaFiles(dataDir);
  expect(files.partial).toEqual([]);
  expect(files.stored).toContain(uploaded);
  const recorded = await recordedKeys(dataDir);
  expect(files.stored.filter((key) => !recorded.has(key))).toEqual([]);
}

describe('Ctrl-C (SIGINT to the process group)', { timeout: 600_000 }, () => {
  it('answers the upload under way, stops the embedded database last, and leaves no file without a record', async () => {
    const { env, dataDir, port } = await newInstall();
    const server = await startServer('ctrl-c-upload', env, port);
    const database = embeddedDatabase(dataDir).pid;

    const uploaded = await ctrlCDuringUpload(server.child.pid!, port, env, server.output);

    expect(await server.exited).toBe(0);
    expectQuietShutdown(server.output());
    expect(server.output()).not.toContain('second signal');
    expect(isAlive(database)).toBe(false);
    await expectNothingUnrecorded(dataDir, uploaded);
  });

  it('answers 503 shutting_down to an upload still unfinished when the drain time is up, and keeps none of it', async () => {
    const { env, dataDir, port } = await newInstall({ SHUTDOWN_DRAIN_MS: '2000' });
    const server = await startServer('ctrl-c-stalled-upload', env, port);
    const { apiKey } = JSON.parse(await runPostdeck(['admin', 'bootstrap', '--json'], env)) as { apiKey: string };

    const upload = startUpload(port, apiKey); // the rest never comes: a client stalled mid-body
    await sleep(500);
    killGroup(server.child.pid!, 'SIGINT');

    const answer = await upload.answer;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'shutting_down' });
    expect(await server.exited).toBe(0);
    expectQuietShutdown(server.output());
    expect(mediaFiles(dataDir)).toEqual({ stored: [], partial: [] });
  });

  it('works through npm start too: npm forwards its own SIGINT, and the server still stops in order', async () => {
    const { env, dataDir, port } = await newInstall();
    // dist/ is current (the global setup built it), so `npm start` rewrites none of it under other servers.
    const npm = spawnLogged('ctrl-c-npm-start', 'npm', ['start'], env, { detached: true });
    started.push(npm);
    await waitForOk(`http://127.0.0.1:${port}/healthz`, STARTUP_MS);
    const { pid: database, ownerPid: server } = embeddedDatabase(dataDir);

    const uploaded = await ctrlCDuringUpload(npm.child.pid!, port, env, npm.output);

    // npm may return before its child has finished (dash dies of the SIGINT at once); the server must still stop cleanly.
    await npm.exited;
    await waitFor(npm.output, '"msg":"stopped"');
    const deadline = Date.now() + EXIT_MS;
    while (isAlive(server) && Date.now() < deadline) await sleep(100);
    expect(isAlive(server)).toBe(false);
    expectQuietShutdown(npm.output());
    expect(npm.output()).not.toContain('second signal');
    expect(isAlive(database)).toBe(false);
    await expectNothingUnrecorded(dataDir, uploaded);
  });

  it('never leaves the embedded database behind, even when Postdeck is SIGKILLed', async () => {
    const { env, dataDir, port } = await newInstall();
    const server = await startServer('ctrl-c-sigkill', env, port);
    const database = embeddedDatabase(dataDir).pid;

    // Its own process group now, so only its stdin closing (the kernel does it for a killed parent) stops it.
    server.child.kill('SIGKILL');
    await server.exited;
    const deadline = Date.now() + EXIT_MS;
    while (!hasExited(database) && Date.now() < deadline) await sleep(100);
    expect(hasExited(database)).toBe(true);
  });
});

/** True once `pid` has exited: gone, or (orphaned, where nobody reaps it at once) a zombie. */
function hasExited(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? false;
  } catch {
    return !isAlive(pid);
  }
}
