import type { Logger } from '../../logger.js';

/** Which engine backs the embedded database. */
export type EmbeddedKind = 'mongod' | 'ferretdb';

/** A MongoDB-compatible database running on loopback for this DATA_DIR. */
export interface EmbeddedDatabase {
  /** `mongodb://127.0.0.1:PORT/`, without a database name. */
  readonly uri: string;
  readonly kind: EmbeddedKind;
  /** False when we attached to a database another process (same DATA_DIR) started and will stop. */
  readonly owned: boolean;
  /** Pid of the database process (FerretDB or mongod), when known. */
  readonly pid?: number | undefined;
  /**
   * Idempotent. Owned: removes the registry file, stops the child (SIGTERM, SIGKILL after 5 s)
   * and waits for it to exit. Not owned: does nothing, the other process stays in charge.
   */
  stop(): Promise<void>;
}

/** Options of {@link openEmbeddedDatabase}; the config layer fills them in. */
export interface EmbeddedOptions {
  /** Absolute DATA_DIR; the database lives in `<dataDir>/mongod` or `<dataDir>/ferretdb`. */
  dataDir: string;
  /** Absolute directory where the FerretDB emulator binary is built and cached. */
  cacheDir: string;
  logger: Logger;
  /** Path of a `mongod` binary to use (from MONGOMS_SYSTEM_BINARY). */
  mongodBinary?: string | undefined;
  /** May mongodb-memory-server download a mongod binary? Default true. */
  allowMongodDownload?: boolean;
  /** Default 'auto' (mongod, then FerretDB). 'mongod' never falls back; 'ferretdb' never tries mongod. */
  prefer?: 'auto' | 'mongod' | 'ferretdb';
}

/** What the registry file advertises to other processes of the same DATA_DIR. */
export interface RunningDatabase {
  uri: string;
  kind: EmbeddedKind;
}

/** A database process this process started (internal to src/db/embedded). */
export interface StartedDatabase {
  kind: EmbeddedKind;
  uri: string;
  pid: number | undefined;
  /** Resolves when the database process has exited, for whatever reason. */
  exited: Promise<void>;
  /** Stops the process and waits for it; idempotent. */
  stop(): Promise<void>;
  /** True once stop() was called, so an exit is not worth an error log. */
  expectExit(): boolean;
}
