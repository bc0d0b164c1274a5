/** A 32-bit seed for one request: the run's seed, the operation and the request's number, mixed (FNV-1a). */
export function seedOf(runSeed: number, operation: string, index: number): number {
  let hash = 0x811c9dc5 ^ runSeed;
  for (const char of `${operation}#${index}`) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/** The run's seed: FUZZ_SEED when set, else `fallback` (a fixed one in CI, a fresh one for `npm run fuzz`). */
export function runSeed(fallback: number): number {
  const given = process.env.FUZZ_SEED;
  if (given === undefined || given === '') return fallback;
  const seed = Number(given);
  if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${given}`);
  return seed;
}
