import type { Collection } from 'mongodb';
import { isDuplicateKeyError } from '../errors.js';
import type { DueTaskDoc } from './documents.js';

/** A due task's `_id`: the second it is due and its slot in that second (see due-tasks.ts). */
export function taskId(second: number, slot: number): string {
  return `${second}#${slot}`;
}

/**
 * Inserts tasks into free slots of their second: this process hands its concurrent inserts distinct
 * slots (no collisions among them), and a slot another process took is skipped (insert-once decides).
 */
export function createTaskInserter(dueTasks: Collection<DueTaskDoc>) {
  /** Where this process's inserts into a second start (slots below are known to be taken). */
  const hints = new Map<number, number>();
  return async function insertTask(name: string, data: unknown, runAt: Date, failCount: number): Promise<string> {
    const second = Math.floor(runAt.getTime() / 1000);
    for (;;) {
      const slot = hints.get(second) ?? 0;
      hints.set(second, slot + 1);
      if (hints.size > 10_000) hints.clear();
      const task: DueTaskDoc = {
        _id: taskId(second, slot),
        name,
        data,
        runAt,
        failCount,
        done: false,
        createdAt: new Date(),
      };
      try {
        await dueTasks.insertOne(task);
        return task._id;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
  };
}
