import path from 'node:path';
import { ensureFerretBinary } from '../../src/db/embedded/build.js';
import { startFerret } from '../../src/db/embedded/ferret.js';
import type { StartedDatabase } from '../../src/db/embedded/types.js';
import { createLogger } from '../../src/logger.js';
import type { BenchDatabase } from './cluster.js';
import { freePort } from './util.js';

/** A database server of its own that a run stops and starts again, on the same port with the same files. */
export interface RestartableDatabase extends BenchDatabase {
  /** Stops the server (SIGTERM, as an operator's restart does); clients see their connections drop. */
  halt(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  resume(): Promise<void>;
}

/**
 * An embedded FerretDB under `dataDir`, started here: never the one other processes share (stopping
 * that would break them), nor MONGODB_URI's, which a run cannot stop.
 */
export async function openRestartableDatabase(
  dataDir: string,
  cacheDir = path.resolve('.cache/ferretdb'),
): Promise<RestartableDatabase> {
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const binary = await ensureFerretBinary(cacheDir, logger);
  const port = await freePort();
  const start = () => startFerret({ binary, dataDir, logger, port });
  let server: StartedDatabase | undefined = await start();
  const uri = server.uri;
  return {
    uri,
    kind: 'ferretdb',
    async halt() {
      await server?.stop();
      server = undefined;
    },
    async resume() {
      server ??= await start();
      if (server.uri !== uri) throw new Error(`FerretDB came back at ${server.uri}, not ${uri}`);
    },
    async stop() {
      await server?.stop();
      server = undefined;
    },
  };
}
