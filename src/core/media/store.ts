import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

/** What a finished write produced: its length and SHA-256 (hex), used as the strong ETag. */
export interface StoredObject {
  size: number;
  sha256: string;
}

/** An inclusive byte range, as HTTP `Range: bytes=start-end` names it. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where media bytes live. Keys are opaque (see `newStorageKey`), never paths, so the same keys
 * work on the local filesystem and in a bucket, and nothing about the layout leaks to clients.
 */
export interface MediaStore {
  /**
   * Streams `source` in; the object exists under `key` only if the whole stream arrived. It must
   * attach to `source` before its first await, since a checking stream may fail at once.
   */
  put(key: string, source: Readable): Promise<StoredObject>;
  /** The object's bytes, or only `range` of them. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the object; removing a missing one is not an error (deletes may be retried). */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /**
   * Deletes partial writes nothing has written to for `idleMs` (left by a process that died mid-upload);
   * answers how many. Only stores that keep partial writes of their own have it (S3 aborts a failed
   * multipart upload itself).
   */
  sweepPartials?(idleMs: number): Promise<number>;
  /**
   * Every stored object with when it was last written, for the sweep of bytes no record names
   * (`sweep-unrecorded.ts`). Only stores that can list cheaply have it (the local one).
   */
  listStored?(): AsyncIterable<{ key: string; modifiedAt: number }>;
}

const KEY_PATTERN = /^[0-9a-f]{32}$/;

/** A fresh storage key: 128 random bits in hex, so keys can be neither guessed nor collide. */
export function newStorageKey(): string {
  return randomBytes(16).toString('hex');
}

/** True for keys `newStorageKey` makes; stores refuse anything else (no path tricks). */
export function isStorageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}
