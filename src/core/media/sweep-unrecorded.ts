import type { CoreDeps } from '../context.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';

/**
 * Bytes become a record (media, preview, rendition) seconds after they are written; bytes no record
 * names after this long belong to a process that stopped in between (killed, crashed, out of time).
 */
export const UNRECORDED_IDLE_MS = 60 * 60_000;
const BATCH = 500;

/**
 * Deletes stored objects that no media record (its bytes or preview) or rendition names and that
 * nothing has written for `idleMs`; answers how many. Stores that cannot list are left alone.
 */
export async function sweepUnrecordedMedia(deps: CoreDeps, idleMs = UNRECORDED_IDLE_MS): Promise<number> {
  const { store } = deps.media;
  if (!store.listStored) return 0;
  const cutoff = deps.now().getTime() - idleMs;
  let swept = 0;
  let batch: string[] = [];
  const flush = async () => {
    const named = await namedKeys(deps, batch);
    for (const key of batch) {
      if (named.has(key)) continue;
      await store.delete(key);
      swept += 1;
    }
    batch = [];
  };
  for await (const { key, modifiedAt } of store.listStored()) {
    if (modifiedAt > cutoff) continue;
    batch.push(key);
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length > 0) await flush();
  return swept;
}

/** Which of `keys` a record names. */
async function namedKeys(deps: CoreDeps, keys: string[]): Promise<Set<string>> {
  const named = new Set<string>();
  const media = deps.db.media.find(
    { $or: [{ storageKey: { $in: keys } }, { 'preview.storageKey': { $in: keys } }] },
    { projection: { storageKey: 1, 'preview.storageKey': 1 } },
  );
  for await (const doc of media) {
    named.add(doc.storageKey);
    if (doc.preview) named.add(doc.preview.storageKey);
  }
  const renditions = deps.db.mediaRenditions.find({ storageKey: { $in: keys } }, { projection: { storageKey: 1 } });
  for await (const doc of renditions) named.add(doc.storageKey);
  return named;
}

/** The hourly sweep of stored bytes no record names. */
export const sweepUnrecordedJob = definePeriodicJob('media.sweep-unrecorded', async (deps) => {
  const swept = await sweepUnrecordedMedia(deps);
  if (swept > 0) deps.logger.info({ swept }, 'deleted stored media no record names');
});
