import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** How to find a program the tests drive (Chromium, nginx) and what to tell someone who lacks it. */
export interface ExecutableSearch {
  /** The environment variable naming the executable, which wins when set. */
  setting: string;
  /** Names to look for, in order, in each directory of PATH. */
  names: string[];
  /** Full paths tried after PATH (where a package installs it off a user's PATH). */
  alsoTry: string[];
  /** The end of the error when none is found: what the program is for and how to install it. */
  missing: string;
}

/**
 * The executable `search` describes: its setting when set (an error if that is not executable),
 * else the first of its names on PATH, else the first of `alsoTry`. None found is an error naming
 * the setting and the install command, never a skip: CI installs these, so a test that cannot run
 * there must say why.
 */
export function findExecutable(search: ExecutableSearch, env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[search.setting];
  if (configured) {
    if (isExecutable(configured)) return configured;
    throw new Error(`${search.setting} is ${configured}, which is not an executable file`);
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of search.names) {
    for (const dir of dirs) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  const other = search.alsoTry.find(isExecutable);
  if (other) return other;
  throw new Error(
    `Not found: set ${search.setting} to the executable, or put ${search.names.join(', ')} on PATH. ${search.missing}`,
  );
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
