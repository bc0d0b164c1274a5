import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { access, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isStorageKey, type ByteRange, type MediaStore, type StoredObject } from './store.js';

/**
 * The default store: files under one directory, sharded by the key's first two characters.
 * Writes go to `.tmp/` in the same directory and are renamed into place only when complete,
 * so a reader never sees half a file and an aborted write leaves nothing behind.
 */
export function createLocalMediaStore(dir: string): MediaStore {
  const tmpDir = path.join(dir, '.tmp');
  // Made up front so `put` can attach to its source before its first await (see MediaStore.put).
  mkdirSync(tmpDir, { recursive: true });
  const fileOf = (key: string): string => {
    if (!isStorageKey(key)) throw new Error('Invalid storage key');
    return path.join(dir, key.slice(0, 2), key);
  };

  return {
    async put(key, source) {
      const target = fileOf(key);
      const temp = path.join(tmpDir, `${randomBytes(8).toString('hex')}.part`);
      const hash = createHash('sha256');
      let size = 0;
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      });
      const writer = createWriteStream(temp, { flags: 'wx' });
      try {
        await pipeline(source, tap, writer);
        await mkdir(path.dirname(target), { recursive: true });
        await rename(temp, target);
      } catch (error) {
        // A writer destroyed before its file opened still creates the file as the open completes; wait for it.
        if (!writer.closed) await new Promise<void>((resolve) => writer.once('close', () => resolve()));
        await rm(temp, { force: true });
        throw error;
      }
      return { size, sha256: hash.digest('hex') } satisfies StoredObject;
    },
    get(key, range?: ByteRange) {
      const stream: Readable = createReadStream(fileOf(key), range ? { start: range.start, end: range.end } : {});
      // Open errors (a missing file) surface on the first read; wait for open so callers see them here.
      return new Promise((resolve, reject) => {
        stream.once('open', () => resolve(stream));
        stream.once('error', reject);
      });
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
    async sweepPartials(idleMs) {
      const cutoff = Date.now() - idleMs;
      let swept = 0;
      for (const name of await readdir(tmpDir)) {
        if (!name.endsWith('.part')) continue;
        const file = path.join(tmpDir, name);
        // A write in progress touches its file with every chunk; only idle ones go.
        const modified = await stat(file).then(
          (info) => info.mtimeMs,
          () => Infinity,
        );
        if (modified > cutoff) continue;
        await rm(file, { force: true });
        swept += 1;
      }
      return swept;
    },
    async *listStored() {
      for (const shard of await readdir(dir, { withFileTypes: true })) {
        if (!shard.isDirectory() || shard.name === '.tmp') continue;
        for (const name of await readdir(path.join(dir, shard.name)).catch(() => [])) {
          if (!isStorageKey(name)) continue;
          // Gone meanwhile (a delete): nothing to list.
          const info = await stat(path.join(dir, shard.name, name)).catch(() => null);
          if (info) yield { key: name, modifiedAt: info.mtimeMs };
        }
      }
    },
    async exists(key) {
      try {
        await access(fileOf(key));
        return true;
      } catch {
        return false;
      }
    },
  };
}
