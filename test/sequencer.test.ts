import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LONG_RUNNING_FILES, LongFirstSequencer } from './support/sequencer.js';

const root = path.resolve(import.meta.dirname, '..');

/** A file as the sequencer sees it: its path and the one project's settings the base order reads. */
function spec(name: string): TestSpecification {
  const project = { name: '', config: { sequence: { groupOrder: 0 }, isolate: true } };
  return { moduleId: path.join(root, name), project } as unknown as TestSpecification;
}

describe('the suite order', () => {
  it('names only files that exist', () => {
    for (const name of LONG_RUNNING_FILES) expect(existsSync(path.join(root, name)), name).toBe(true);
  });

  it('starts the long-running files first, longest first, and keeps the rest in order', async () => {
    // A fresh clone: no durations or sizes cached, so the base order keeps the given one.
    const cache = { getFileTestResults: () => undefined, getFileStats: () => undefined };
    const sequencer = new LongFirstSequencer({ cache, config: { root } } as unknown as Vitest);
    const names = ['test/a.test.ts', LONG_RUNNING_FILES[2]!, 'test/b.test.ts', LONG_RUNNING_FILES[0]!];
    const sorted = await sequencer.sort(names.map(spec));
    expect(sorted.map((file) => path.relative(root, file.moduleId))).toEqual([
      LONG_RUNNING_FILES[0],
      LONG_RUNNING_FILES[2],
      'test/a.test.ts',
      'test/b.test.ts',
    ]);
  });
});
