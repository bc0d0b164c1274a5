import type { UpdateFilter } from 'mongodb';
import type { CoreDeps } from '../../context.js';
import type { GenerationJobDoc, GenerationSlideDoc, GenerationStage } from './documents.js';

/**
 * Writes a running job's progress. One runner holds a job at a time (the queue's lock), and its
 * writes go out one after another in the order made, so `completed` and `stage` never go backwards
 * even when several slides finish at once.
 */
export class JobWriter {
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: CoreDeps,
    readonly job: GenerationJobDoc,
  ) {}

  /** Records what a slide now has; `imageDone` counts its image as completed. */
  slide(position: number, changes: Partial<GenerationSlideDoc>, imageDone = false): Promise<void> {
    const slide = this.job.slides[position] as GenerationSlideDoc;
    Object.assign(slide, changes);
    if (imageDone) this.job.completed = this.job.slides.filter((each) => each.generatedMediaId).length;
    const set: Record<string, unknown> = { completed: this.job.completed };
    for (const [key, value] of Object.entries(changes)) set[`slides.${position}.${key}`] = value;
    return this.write({ $set: set });
  }

  stage(stage: GenerationStage, changes: Partial<GenerationJobDoc> = {}): Promise<void> {
    Object.assign(this.job, changes, { stage });
    return this.write({ $set: { ...changes, stage } });
  }

  private write(update: UpdateFilter<GenerationJobDoc> & { $set: Record<string, unknown> }): Promise<void> {
    const now = this.deps.now();
    this.job.updatedAt = now;
    const next = this.last.then(() =>
      this.deps.db.generationJobs.updateOne(
        { _id: this.job._id },
        { ...update, $set: { ...update.$set, updatedAt: now } },
      ),
    );
    this.last = next.catch(() => undefined);
    return next.then(() => undefined);
  }
}
