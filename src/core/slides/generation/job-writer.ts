import type { UpdateFilter } from 'mongodb';
import type { CoreDeps } from '../../context.js';
import type { GenerationJobDoc, GenerationSlideDoc, GenerationStage } from './documents.js';

/** Fields set by writes that wait for the one in flight, to go out together as one update. */
interface Batch {
  set: Record<string, unknown>;
  done: Promise<void>;
}

/**
 * Writes a running job's progress. One runner holds a job at a time (the queue's lock), and its
 * writes go out one after another in the order made, so `completed` and `stage` never go backwards
 * even when several slides finish at once. Writes made while one is in flight are sent together in
 * the next update (a later value of a field wins, as it would one write later): slides finishing at
 * once cost one round trip, not one each.
 */
export class JobWriter {
  private last: Promise<unknown> = Promise.resolve();
  private waiting: Batch | undefined;

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
    return this.write(set);
  }

  stage(stage: GenerationStage, changes: Partial<GenerationJobDoc> = {}): Promise<void> {
    Object.assign(this.job, changes, { stage });
    return this.write({ ...changes, stage });
  }

  private write(set: Record<string, unknown>): Promise<void> {
    const now = this.deps.now();
    this.job.updatedAt = now;
    const fields = { ...set, updatedAt: now };
    const waiting = this.waiting;
    if (waiting && !overlaps(waiting.set, fields)) {
      Object.assign(waiting.set, fields);
      return waiting.done;
    }
    const batch: Batch = { set: fields, done: Promise.resolve() };
    this.waiting = batch;
    const sent = this.last.then(() => {
      if (this.waiting === batch) this.waiting = undefined;
      const update: UpdateFilter<GenerationJobDoc> = { $set: batch.set };
      return this.deps.db.generationJobs.updateOne({ _id: this.job._id }, update);
    });
    batch.done = sent.then(() => undefined);
    this.last = sent.catch(() => undefined);
    return batch.done;
  }
}

/** Whether one update may not set both: one field inside the other (`slides` and `slides.0.caption`). */
function overlaps(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const inside = (outer: string, inner: string) => inner.startsWith(`${outer}.`);
  return Object.keys(a).some((x) => Object.keys(b).some((y) => inside(x, y) || inside(y, x)));
}
