import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/scale.md names its sources by path; a reader of the repository must be able to open each one.
const text = readFileSync(path.resolve('docs/scale.md'), 'utf8');

/** Every `code span` that reads as a file path: a slash and a file extension, no spaces. */
function citedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!);
  return [...new Set(spans.filter((span) => span.includes('/') && /\.[a-z]{2,4}$/.test(span)))];
}

describe('the paths docs/scale.md cites', () => {
  const cited = citedPaths(text);

  it('are all inside the repository', () => {
    expect(cited.length).toBeGreaterThan(3);
    const outside = cited.filter((file) => path.isAbsolute(file) || file.split('/').includes('..'));
    expect(outside).toEqual([]);
  });

  it('all exist', () => {
    expect(cited.filter((file) => !existsSync(path.resolve(file)))).toEqual([]);
  });
});
