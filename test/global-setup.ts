import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded/index.js';
import { createLogger } from '../src/logger.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
    ferretCacheDir: string;
  }
}

/** The FerretDB binary is built once here and shared by every test (and by the spawned servers). */
export const FERRET_CACHE_DIR = path.resolve('.cache/ferretdb');

let embedded: EmbeddedDatabase | undefined;
let dataDir: string | undefined;

/**
 * One database server for the whole run, each test file using its own database in it:
 * MONGODB_URI when set (a real MongoDB), otherwise an embedded one started here.
 * Also builds dist/ when a source is newer than it (as `npm ci` and the entry point do), which the
 * end-to-end tests spawn as the real entry point.
 */
export async function setup(project: TestProject): Promise<void> {
  // POSTDECK_TEST_BUILD=skip runs against dist/ as it is, even when stale (for files that spawn nothing).
  if (process.env.POSTDECK_TEST_BUILD !== 'skip') {
    execFileSync(process.execPath, ['bin/build.js', '--if-stale'], { stdio: 'inherit' });
  }
  let uri = process.env.MONGODB_URI;
  if (!uri) {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-test-db-'));
    embedded = await openEmbeddedDatabase({
      dataDir,
      cacheDir: FERRET_CACHE_DIR,
      logger: createLogger({ level: 'info', destination: process.stderr }),
      prefer: (process.env.EMBEDDED_DB as 'auto' | 'mongod' | 'ferretdb' | undefined) ?? 'auto',
      mongodBinary: process.env.MONGOMS_SYSTEM_BINARY,
    });
    uri = embedded.uri;
  }
  project.provide('mongoUri', uri);
  project.provide('ferretCacheDir', FERRET_CACHE_DIR);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
