import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERIODIC_JOBS } from '../../src/app/jobs.js';
import { createLocalMediaStore } from '../../src/core/media/local-store.js';
import { PARTIAL_IDLE_MS } from '../../src/core/media/sweep-partials-job.js';
import { newStorageKey } from '../../src/core/media/store.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-store-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the local media store', () => {
  it('leaves no partial file once a put fails, even when the source fails before the file is open', async () => {
    const store = createLocalMediaStore(dir);
    // As an upload the type check refuses: the first chunk fails while the file may still be opening,
    // which left an empty partial file behind a few times in a hundred.
    for (let i = 0; i < 200; i += 1) {
      const refuse = new Transform({
        transform(_chunk, _encoding, callback) {
          callback(new Error('upload refused'));
        },
      });
      const source = Readable.from([Buffer.alloc(100)]).pipe(refuse);
      await expect(store.put(newStorageKey(), source)).rejects.toThrow('upload refused');
    }
    await sleep(100);
    expect(await readdir(path.join(dir, '.tmp'))).toEqual([]);
  });

  it('sweeps partial writes left idle by a process that died, and keeps the ones still being written', async () => {
    const store = createLocalMediaStore(dir);
    const tmp = path.join(dir, '.tmp');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
    await writeFile(path.join(tmp, 'abandoned.part'), 'half an upload');
    await utimes(path.join(tmp, 'abandoned.part'), twoHoursAgo, twoHoursAgo);
    await writeFile(path.join(tmp, 'in-progress.part'), 'still arriving');
    await writeFile(path.join(tmp, 'not-ours.txt'), 'left alone');
    await utimes(path.join(tmp, 'not-ours.txt'), twoHoursAgo, twoHoursAgo);
    expect(await store.sweepPartials?.(PARTIAL_IDLE_MS)).toBe(1);
    expect((await readdir(tmp)).sort()).toEqual(['in-progress.part', 'not-ours.txt']);
    expect(PERIODIC_JOBS.some((job) => job.definition.name === 'media.sweep-partials')).toBe(true);
  });
});
