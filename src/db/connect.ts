import { MongoClient, type Db } from 'mongodb';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { watchDatabaseAvailability } from './availability.js';
import { openEmbeddedDatabase, type EmbeddedDatabase } from './embedded/index.js';

/** An open database: the driver handle plus whatever must be stopped with it. */
export interface DatabaseHandle {
  readonly db: Db;
  readonly client: MongoClient;
  /** Which server answers: the configured MONGODB_URI, or an embedded mongod or FerretDB. */
  readonly kind: 'external' | 'mongod' | 'ferretdb';
  ping(): Promise<void>;
  /** Closes the client, then stops the embedded database if this process started it. Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects to MONGODB_URI when set; otherwise attaches to the embedded database another process
 * of this DATA_DIR runs, or starts one (unless EMBEDDED_DB is `none`).
 */
export async function openDatabase(config: Config, logger: Logger): Promise<DatabaseHandle> {
  let embedded: EmbeddedDatabase | undefined;
  let uri = config.mongo.uri;
  const prefer = config.mongo.embedded;
  if (!uri) {
    if (prefer === 'none') {
      throw new Error(
        'MONGODB_URI is not set, and EMBEDDED_DB=none rules out the embedded database. The Docker image sets ' +
          'EMBEDDED_DB=none: it has no Go to build the embedded FerretDB, and containers sharing a volume must not ' +
          'each start a database. Set MONGODB_URI to a MongoDB replica set (docker-compose.yml runs one).',
      );
    }
    embedded = await openEmbeddedDatabase({
      dataDir: config.dataDir,
      cacheDir: config.mongo.ferretCacheDir,
      logger,
      mongodBinary: config.mongo.mongodBinary,
      allowMongodDownload: config.mongo.mongodDownload,
      prefer,
    });
    uri = embedded.uri;
  }

  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, appName: 'postdeck' });
  try {
    await client.connect();
  } catch (error) {
    await embedded?.stop();
    throw new Error(
      `Cannot connect to MongoDB (${(error as Error).message}). Check MONGODB_URI, or unset it to use the embedded database.`,
    );
  }
  const db = client.db(config.mongo.dbName);
  const availability = watchDatabaseAvailability(client, logger);
  const kind = embedded?.kind ?? 'external';
  logger.info({ database: kind, attached: embedded ? !embedded.owned : undefined }, `database: ${kind}`);

  let closing: Promise<void> | undefined;
  return {
    db,
    client,
    kind,
    async ping() {
      await db.command({ ping: 1 }, { timeoutMS: 2_000 });
    },
    close() {
      closing ??= (async () => {
        availability.stop();
        await client.close();
        await embedded?.stop();
      })();
      return closing;
    },
  };
}
