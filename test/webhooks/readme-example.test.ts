import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { shellBlocks } from '../support/readme.js';

// The README's webhook example runs as written in a fresh shell: every variable it reads is one it sets
// (a reader arriving at this section has nothing else in their shell).
describe("the README's webhook example", () => {
  it('sets every variable it uses', () => {
    const { blocks } = shellBlocks(readFileSync('README.md', 'utf8'), '## Webhooks');
    expect(blocks.length).toBeGreaterThan(0);
    const set = new Set<string>();
    const unset: string[] = [];
    for (const command of blocks.flat()) {
      for (const [, name] of command.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
        if (!set.has(name!)) unset.push(name!);
      }
      for (const [, name] of command.matchAll(/(?:^|[;&|]\s*)([A-Za-z_][A-Za-z0-9_]*)=/g)) set.add(name!);
    }
    expect(unset).toEqual([]);
  });
});
