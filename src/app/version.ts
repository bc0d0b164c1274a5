import { createRequire } from 'node:module';

/** Postdeck's version, from package.json (two folders up from src/app and from dist/app alike). */
export const POSTDECK_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
