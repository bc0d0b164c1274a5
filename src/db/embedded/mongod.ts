import { access, constants, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { DryMongoBinary, MongoMemoryServer } from 'mongodb-memory-server-core';
import type { Logger } from '../../logger.js';
import { canReach, waitForExit } from './proc.js';
import type { StartedDatabase } from './types.js';

/** How long mongod may take to accept connections once spawned. */
const LAUNCH_TIMEOUT_MS = 20_000;
/** How long we give the download host to accept a TCP connection before we give up on downloading. */
const DOWNLOAD_PROBE_MS = 3_000;

interface MongodOptions {
  dataDir: string;
  logger: Logger;
  mongodBinary?: string | undefined;
  allowDownload: boolean;
}

/**
 * Starts a real mongod through mongodb-memory-server with its files in `<dataDir>/mongod`.
 * Throws quickly when no binary is at hand and none can be downloaded.
 */
export async function startMongod({
  dataDir,
  logger,
  mongodBinary,
  allowDownload,
}: MongodOptions): Promise<StartedDatabase> {
  if (mongodBinary) {
    try {
      await access(mongodBinary, constants.X_OK);
    } catch {
      throw new Error(`mongod binary ${mongodBinary} (MONGOMS_SYSTEM_BINARY) does not exist or is not executable`);
    }
  } else if (!(await DryMongoBinary.locateBinary(await DryMongoBinary.generateOptions()))) {
    if (!allowDownload) throw new Error('no mongod binary found and downloading one is disabled');
    await probeDownloadHost();
    logger.info('downloading a mongod binary (about 100 MB, first run only)...');
  }

  const dbPath = path.join(dataDir, 'mongod');
  await mkdir(dbPath, { recursive: true, mode: 0o700 });
  const server = new MongoMemoryServer({
    binary: mongodBinary ? { systemBinary: mongodBinary } : {},
    // Its own process group, out of reach of the terminal's Ctrl-C (see ferret.ts); the library's
    // watchdog still kills it if this process dies.
    spawn: { detached: true },
    instance: { dbPath, storageEngine: 'wiredTiger', ip: '127.0.0.1', launchTimeout: LAUNCH_TIMEOUT_MS },
  });
  try {
    await server.start();
  } catch (error) {
    // A half-started mongod would otherwise hold the dbPath lock.
    await server.stop({ doCleanup: false }).catch(() => undefined);
    throw error;
  }

  // mongodb-memory-server also launches a watchdog that kills mongod if this process dies.
  const child = server.instanceInfo?.instance.mongodProcess;
  let stopping: Promise<void> | undefined;
  return {
    kind: 'mongod',
    uri: server.getUri(),
    pid: child?.pid,
    exited: child ? waitForExit(child) : new Promise<void>(() => undefined),
    // doCleanup false: the dbPath is our persistent data, not a temp dir.
    stop: () => (stopping ??= server.stop({ doCleanup: false }).then(() => undefined)),
    expectExit: () => stopping !== undefined,
  };
}

/**
 * mongodb-memory-server retries a failed download for several seconds; without network that is
 * pure delay before the FerretDB fallback, so first check that the download host answers at all.
 */
async function probeDownloadHost(): Promise<void> {
  // Behind a proxy a direct connection proves nothing; let the library try through the proxy.
  const env = process.env;
  if (env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy || env.ALL_PROXY || env.all_proxy) return;
  const raw = env.MONGOMS_DOWNLOAD_URL || env.MONGOMS_DOWNLOAD_MIRROR || 'https://fastdl.mongodb.org';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return; // the library will report the bad URL itself
  }
  const port = Number(url.port) || (url.protocol === 'http:' ? 80 : 443);
  if (!(await canReach(url.hostname, port, DOWNLOAD_PROBE_MS))) {
    throw new Error(`cannot download mongod: ${url.hostname}:${port} is unreachable (offline?)`);
  }
}
