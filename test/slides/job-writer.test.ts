import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/core/context.js';
import type { GenerationJobDoc, GenerationSlideDoc } from '../../src/core/slides/generation/documents.js';
import { JobWriter } from '../../src/core/slides/generation/job-writer.js';
import { openTestDatabase, watchCommands, type TestDatabase, type WatchedDatabase } from '../support/db.js';

// A generation job's progress writes, watched on the wire: slides that finish together (the last
// round of a job) must not each pay a database round trip before the post can be made.
let t: TestDatabase;
let watched: WatchedDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
  watched = await watchCommands(t);
});
afterAll(async () => {
  await watched.close();
  await t.close();
});

function slide(index: number): GenerationSlideDoc {
  return { index, caption: `Slide ${index}`, imagePrompt: `a lake, view ${index}` } as GenerationSlideDoc;
}

/** A PROCESSING job of `count` slides, stored, and a writer for it on the watched connection. */
async function writerFor(count: number): Promise<JobWriter> {
  const now = new Date();
  const job = {
    _id: randomUUID(),
    status: 'PROCESSING',
    stage: 'generating_images',
    slides: Array.from({ length: count }, (_, index) => slide(index)),
    completed: 0,
    createdAt: now,
    updatedAt: now,
  } as unknown as GenerationJobDoc;
  await t.deps.db.generationJobs.insertOne(structuredClone(job));
  const deps: CoreDeps = { ...t.deps, db: watched.db };
  return new JobWriter(deps, job);
}

const updates = () =>
  watched.commands.filter((c) => c.commandName === 'update' && c.command.update === 'generation_jobs');

describe('JobWriter', () => {
  it('sends the slides that finish while a write is in flight together, in one update, none lost', async () => {
    const writer = await writerFor(4);
    watched.commands.length = 0;
    const first = writer.slide(0, { generatedMediaId: 'image-0' }, true);
    // Three more slides finish while the first write is on its way.
    const rest = [1, 2, 3].map((position) =>
      writer
        .slide(position, { generatedMediaId: `image-${position}` }, true)
        .then(() => writer.slide(position, { compositeMediaId: `slide-${position}` })),
    );
    await Promise.all([first, ...rest]);
    const stored = await t.deps.db.generationJobs.findOne({ _id: writer.job._id });
    expect(stored?.completed).toBe(4);
    expect(stored?.slides.map((each) => each.generatedMediaId)).toEqual(['image-0', 'image-1', 'image-2', 'image-3']);
    expect(stored?.slides.map((each) => each.compositeMediaId ?? null)).toEqual([
      null,
      'slide-1',
      'slide-2',
      'slide-3',
    ]);
    // Eight writes were made; the four images went in one update and the three composites in one more.
    expect(updates()).toHaveLength(2);
  });

  it('keeps the order of writes that cannot share an update (a stage replacing the slides, then a slide)', async () => {
    const writer = await writerFor(2);
    watched.commands.length = 0;
    const staged = writer.stage('generating_images', { slides: [slide(0), slide(1), slide(2)] });
    const recorded = writer.slide(2, { generatedMediaId: 'image-2' }, true);
    await Promise.all([staged, recorded]);
    const stored = await t.deps.db.generationJobs.findOne({ _id: writer.job._id });
    expect(stored?.slides).toHaveLength(3);
    expect(stored?.slides[2]?.generatedMediaId).toBe('image-2');
    expect(stored?.completed).toBe(1);
    expect(updates()).toHaveLength(2);
  });
});
