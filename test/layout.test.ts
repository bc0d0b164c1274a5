import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 300;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the layout of src/', () => {
  it(`keeps every file at ${MAX_LINES} lines or fewer`, () => {
    const files = sourceFiles('src');
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((file) => [file, readFileSync(file, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('keeps composition out of the root: only the config and the logger sit loose at src/', () => {
    const loose = readdirSync('src', { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
    expect(loose).toEqual(['config.ts', 'logger.ts']);
  });
});
