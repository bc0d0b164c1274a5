import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.js';
import { ensureFerretBinary } from './build.js';
import { startFerret } from './ferret.js';
import { acquireLock } from './lock.js';
import { startMongod } from './mongod.js';
import { messageOf } from './proc.js';
import { findRunningEmbeddedDatabase, removeRegistry, startLockPath, writeRegistry } from './registry.js';
import type { RegistryEntry } from './registry.js';
import type { EmbeddedDatabase, EmbeddedKind, EmbeddedOptions, RunningDatabase, StartedDatabase } from './types.js';

export type { EmbeddedDatabase, EmbeddedKind, EmbeddedOptions } from './types.js';
export { ensureFerretBinary } from './build.js';
export { findRunningEmbeddedDatabase } from './registry.js';

/** The starter may be building FerretDB (a minute or two) or downloading mongod; wait that long. */
const START_LOCK_TIMEOUT_MS = 10 * 60_000;

/**
 * Returns the embedded database of `options.dataDir`: the one another process already runs
 * (owned: false), or a new one this process starts and must stop (owned: true). Tries mongod
 * first, then the FerretDB emulator; throws with a hint about MONGODB_URI when neither works.
 */
export async function openEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dataDir, logger } = options;
  await mkdir(dataDir, { recursive: true });
  const running = await findRunningEmbeddedDatabase(dataDir);
  if (running) return attach(running, logger);

  // The lock keeps two processes (server and CLI, or two test workers) from starting two
  // databases on the same files; the loser waits, then attaches to the winner's database.
  const release = await acquireLock(startLockPath(dataDir), {
    timeoutMs: START_LOCK_TIMEOUT_MS,
    purpose: `starting the embedded database of ${dataDir}`,
    onWait: (pid) => logger.info({ pid }, 'another process is starting the embedded database; waiting for it'),
  });
  try {
    const startedMeanwhile = await findRunningEmbeddedDatabase(dataDir);
    if (startedMeanwhile) return attach(startedMeanwhile, logger);
    return await register(await startPreferred(options), dataDir, logger);
  } finally {
    await release();
  }
}

function attach(running: RunningDatabase, logger: Logger): EmbeddedDatabase {
  logger.info(
    { database: running.kind, uri: running.uri, owned: false },
    'using the embedded database another process runs',
  );
  return { ...running, owned: false, stop: () => Promise.resolve() };
}

async function startPreferred(options: EmbeddedOptions): Promise<StartedDatabase> {
  const { dataDir, logger } = options;
  const order = await startOrder(options);
  const failures: string[] = [];
  for (const kind of order) {
    try {
      const started = await startKind(kind, options);
      if (failures.length > 0 && (await hasData(path.join(dataDir, order[0] ?? kind)))) {
        logger.warn(
          { dataDir },
          `running on ${kind}; data stored earlier by ${order[0]} in this DATA_DIR is not visible`,
        );
      }
      return started;
    } catch (error) {
      failures.push(`${kind}: ${messageOf(error)}`);
      // No mongod around is the normal case offline; a mongod binary that was configured and fails is not.
      const level = kind === 'mongod' && !options.mongodBinary ? 'info' : 'warn';
      logger[level]({ database: kind, reason: messageOf(error) }, `cannot start ${kind} as the embedded database`);
    }
  }
  throw new Error(
    `No embedded database could be started in ${dataDir} (${failures.join('; ')}). ` +
      'Set MONGODB_URI to a MongoDB server you run (e.g. MONGODB_URI=mongodb://127.0.0.1:27017/postdeck), ' +
      'or let the embedded one start: install Go 1.24+ for the FerretDB emulator, or set MONGOMS_SYSTEM_BINARY to a mongod binary.',
  );
}

/**
 * mongod first, FerretDB second, unless told otherwise. In 'auto', a DATA_DIR that so far only
 * holds FerretDB data keeps using FerretDB, so installing mongod later does not hide the data.
 */
async function startOrder({ dataDir, prefer = 'auto' }: EmbeddedOptions): Promise<EmbeddedKind[]> {
  if (prefer === 'ferretdb') return ['ferretdb'];
  if (prefer === 'mongod') return ['mongod'];
  const ferretOnly = (await hasData(path.join(dataDir, 'ferretdb'))) && !(await hasData(path.join(dataDir, 'mongod')));
  return ferretOnly ? ['ferretdb', 'mongod'] : ['mongod', 'ferretdb'];
}

async function startKind(kind: EmbeddedKind, options: EmbeddedOptions): Promise<StartedDatabase> {
  const { dataDir, logger } = options;
  if (kind === 'mongod') {
    return startMongod({
      dataDir,
      logger,
      mongodBinary: options.mongodBinary,
      allowDownload: options.allowMongodDownload ?? true,
    });
  }
  return startFerret({ binary: await ensureFerretBinary(options.cacheDir, logger), dataDir, logger });
}

/** Advertises a database we started in the registry and wraps it for the caller. */
async function register(started: StartedDatabase, dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const { kind, uri } = started;
  const entry: RegistryEntry = {
    pid: started.pid ?? process.pid,
    ownerPid: process.pid,
    uri,
    kind,
    startedAt: new Date().toISOString(),
  };
  try {
    await writeRegistry(dataDir, entry);
  } catch (error) {
    await started.stop();
    throw error;
  }
  void started.exited.then(async () => {
    if (!started.expectExit()) logger.error({ database: kind, uri }, 'the embedded database exited unexpectedly');
    await removeRegistry(dataDir, entry).catch(() => undefined);
  });
  logger.info({ database: kind, uri, pid: started.pid }, `embedded database ready (${kind})`);

  let stopping: Promise<void> | undefined;
  return {
    uri,
    kind,
    owned: true,
    pid: started.pid,
    // Unregister first so nobody attaches to a database that is going away.
    stop: () =>
      (stopping ??= (async () => {
        await removeRegistry(dataDir, entry).catch(() => undefined);
        await started.stop();
        logger.info({ database: kind, uri }, 'embedded database stopped');
      })()),
  };
}

async function hasData(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length > 0;
  } catch {
    return false;
  }
}
