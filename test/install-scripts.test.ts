import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// npm 11 skips a dependency's install scripts unless package.json's `allowScripts` allows them, and
// `npm ci` ends with an `install-scripts` warning for each package it has no decision about. Every
// package with an install script has one here, so a fresh `npm ci` prints no such warning.
const pkg = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(path.resolve('package-lock.json'), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};

describe('install scripts of dependencies', () => {
  it('has a decision in allowScripts for every package that has one', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([where, entry]) => where !== '' && entry.hasInstallScript)
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(Object.keys(pkg.allowScripts ?? {}).sort()).toEqual([...new Set(withScripts)].sort());
  });

  it('runs none of them (Postdeck needs none), and the README says why', () => {
    expect(Object.keys(pkg.allowScripts ?? {})).not.toHaveLength(0);
    expect(Object.values(pkg.allowScripts ?? {})).not.toContain(true);
    const readme = readFileSync(path.resolve('README.md'), 'utf8');
    for (const name of Object.keys(pkg.allowScripts ?? {})) {
      expect(readme).toContain(`\`${name}\``);
    }
    expect(readme).toContain('`allowScripts`');
  });
});
