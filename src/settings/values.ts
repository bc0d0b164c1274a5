// Small helpers of config.ts: how raw environment values are read and the result protected.

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
