import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that run for minutes (they start servers, workers and databases of their own), longest
 * first. Vitest orders a fresh clone's files by size, so these short files started last and one
 * worker ran on alone for minutes after the other had finished; started first, the two end together.
 */
export const LONG_RUNNING_FILES = [
  'test/deploy/scale.test.ts',
  'test/slides/processes.test.ts',
  'test/insights/collect-processes.test.ts',
  'test/e2e/serve.test.ts',
  'test/bots/processes.test.ts',
  'test/deploy/db-restart.test.ts',
  'test/deploy/rolling-restart.test.ts',
  'test/insights/whole-loop.test.ts',
  'test/acceptance/two-networks.test.ts',
  'test/webhooks/slow-receivers.test.ts',
  'test/cli/build-once.test.ts',
  'test/browser/readme-walkthrough.test.ts',
];

/** Vitest's own order (failed, then longer in the cache, then larger), with the long-running files first. */
export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONG_RUNNING_FILES.findIndex((name) => file.moduleId.endsWith(`/${name}`));
      return at < 0 ? LONG_RUNNING_FILES.length : at;
    };
    return sorted
      .map((file, index) => ({ file, index, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ file }) => file);
  }
}
