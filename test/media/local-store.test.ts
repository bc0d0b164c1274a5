import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalMediaStore } from '../../src/core/media/local-store.js';
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
});
