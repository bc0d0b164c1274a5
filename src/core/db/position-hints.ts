import type { Collection } from 'mongodb';
import { isDuplicateKeyError } from '../errors.js';
import type { PositionHintDoc } from './primitive-documents.js';

/** The last recorded position under `id`, or 0. */
export async function readHint(hints: Collection<PositionHintDoc>, id: string): Promise<number> {
  return (await hints.findOne({ _id: id }))?.position ?? 0;
}

/**
 * Records `position` under `id` unless a later one is there. Not atomic, and it need not be:
 * a lost race leaves the hint behind, which only costs the next reader a few more lookups.
 */
export async function raiseHint(hints: Collection<PositionHintDoc>, id: string, position: number): Promise<void> {
  if ((await readHint(hints, id)) >= position) return;
  await hints.replaceOne({ _id: id }, { position }, { upsert: true }).catch((error: unknown) => {
    // Two first writers at once: the other one's upsert inserted; either value is a fine hint.
    if (!isDuplicateKeyError(error)) throw error;
  });
}
