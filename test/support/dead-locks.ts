import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, ObjectId } from 'mongodb';
import type { SpawnedPostdeck } from './spawn.js';

/** Agenda jobs a SIGKILLed worker still holds: their ids and lock times, as read right after the kill. */
export interface HeldLocks {
  name: string;
  held: { _id: ObjectId; lockedAt: Date }[];
}

/** Reads the locks of jobs named `name` left by a dead worker; call it before any other worker runs. */
export async function locksLeftBehind(db: Db, name: string): Promise<HeldLocks> {
  const jobs = await db
    .collection<{ _id: ObjectId; lockedAt: Date | null }>('agendaJobs')
    .find({ name, lockedAt: { $ne: null } }, { projection: { lockedAt: 1 } })
    .toArray();
  return { name, held: jobs.map((job) => ({ _id: job._id, lockedAt: job.lockedAt! })) };
}

/**
 * Moves those locks back past any lifetime, as if the seconds a dead worker's lock lasts had gone by:
 * the next worker takes the jobs at its next poll. Each is moved only while it still holds the dead
 * worker's time, so a lock a live worker took meanwhile never moves. Call it once the next worker runs
 * (workerRunning), so its jobs are picked up by its steady polling, as a lock lapsing by itself is.
 */
export async function lapseLocks(db: Db, { name, held }: HeldLocks): Promise<void> {
  const jobs = db.collection<{ _id: ObjectId; name: string; lockedAt: Date | null }>('agendaJobs');
  for (const { _id, lockedAt } of held) {
    await jobs.updateOne({ _id, name, lockedAt }, { $set: { lockedAt: new Date(0) } });
  }
}

/** Waits until a spawned worker says its queue runs; throws with its output if it never does. */
export async function workerRunning(worker: SpawnedPostdeck, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!worker.output().includes('Postdeck worker is running')) {
    if (worker.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`the worker did not start:\n${worker.output()}`);
    }
    await sleep(50);
  }
}
