import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// The README and package.json promise Node 20.19; `npm ci` warns (EBADENGINE) when a package the
// lock installs asks for more. Checked against the lock, so a dependency update that raises the floor
// fails here before anyone installs it.
interface LockedPackage {
  version?: string;
  engines?: Record<string, string> | string[];
}

const manifest = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.resolve('package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};

describe('the Node version package.json promises', () => {
  const promised = semver.minVersion(manifest.engines.node)!;

  it('is 20.19.0, as the README says', () => {
    expect(promised.version).toBe('20.19.0');
    expect(readFileSync(path.resolve('README.md'), 'utf8')).toContain('Node.js 20.19 or newer');
  });

  it('is admitted by the engines.node of every package the lock installs', () => {
    const entries = Object.entries(lock.packages).filter(([where]) => where !== '');
    expect(entries.length).toBeGreaterThan(100);
    const refusing = entries.flatMap(([where, locked]) => {
      // An engines array is npm's long-gone form; no package in the lock uses it.
      if (Array.isArray(locked.engines)) return [`${where}: engines as an array`];
      const range = locked.engines?.node;
      return range === undefined || semver.satisfies(promised, range) ? [] : [`${where}@${locked.version}: ${range}`];
    });
    expect(refusing).toEqual([]);
  });
});
