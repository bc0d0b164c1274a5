import { existsSync, readFileSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';

// Small helpers of config.ts: how raw environment values are read and the result protected.

/** The variables of `env` over those of the `.env` file at `envFile` (if any), empty ones left out. */
export function readEnvironment(env: NodeJS.ProcessEnv, envFile: string): Record<string, string> {
  const fileVars = existsSync(envFile) ? parseDotenv(readFileSync(envFile)) : {};
  return { ...withoutEmpty(fileVars), ...withoutEmpty(env) };
}

// An empty variable (FOO=, exported or in .env) means "use the default", as most servers treat it.
export function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => Boolean(entry[1])));
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** A yes/no setting: `true`, `1` or `yes` turn it on; `false`, `0` or `no` off. */
export const envBoolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
