import { randomUUID } from 'node:crypto';
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERIODIC_JOBS } from '../../src/app/jobs.js';
import { newStorageKey } from '../../src/core/media/store.js';
import { sweepUnrecordedMedia, UNRECORDED_IDLE_MS } from '../../src/core/media/sweep-unrecorded.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildMedia } from '../support/media.js';

// Bytes a stopped process stored but never recorded (an upload cut off between the store and the
// insert) are deleted once idle; bytes any record names, and fresh ones, stay.
let t: TestDatabase;

beforeAll(async () => {
  t = await openTestDatabase();
});

afterAll(async () => {
  await t.close();
});

async function stored(ageMs: number): Promise<string> {
  const key = newStorageKey();
  await t.deps.media.store.put(key, Readable.from([Buffer.from(key)]));
  const when = new Date(Date.now() - ageMs);
  await utimes(path.join(t.mediaDir, key.slice(0, 2), key), when, when);
  return key;
}

describe('sweepUnrecordedMedia', () => {
  it('deletes idle bytes no media record or rendition names, and nothing else', async () => {
    const old = UNRECORDED_IDLE_MS + 60_000;
    const media = await stored(old);
    const preview = await stored(old);
    const rendition = await stored(old);
    const orphan = await stored(old);
    const fresh = await stored(0);
    const doc = await buildMedia(t.deps, randomUUID(), {
      storageKey: media,
      preview: { storageKey: preview, mimeType: 'image/webp', size: 1, sha256: '0'.repeat(64) },
    });
    await t.deps.db.mediaRenditions.insertOne({
      _id: `${doc._id}#tiktok`,
      mediaId: doc._id,
      workspaceId: doc.workspaceId,
      kind: 'tiktok',
      storageKey: rendition,
      mimeType: 'image/jpeg',
      size: 1,
      sha256: '0'.repeat(64),
      width: 1,
      height: 1,
      createdAt: new Date(),
    });

    expect(await sweepUnrecordedMedia(t.deps)).toBe(1);
    const exists = async (key: string) => t.deps.media.store.exists(key);
    expect(await exists(orphan)).toBe(false);
    for (const key of [media, preview, rendition, fresh]) expect(await exists(key)).toBe(true);
    expect(PERIODIC_JOBS.some((job) => job.definition.name === 'media.sweep-unrecorded')).toBe(true);
  });
});
