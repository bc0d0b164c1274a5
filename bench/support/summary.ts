/** A bench's key figures by name (units in the name: `_ms`, `_per_s`), for bench:compare. */
export type Figures = Record<string, number>;

const PREFIX = 'BENCH_SUMMARY ';

/** Prints the machine-readable line bench:compare reads: `BENCH_SUMMARY {"bench":…,"figures":{…}}`. */
export function printSummary(bench: string, figures: Figures): void {
  console.log(`${PREFIX}${JSON.stringify({ bench, figures })}`);
}

/** The figures of the last summary line in `output`, or null when it has none. */
export function parseSummary(output: string): Figures | null {
  const lines = output.split('\n').filter((l) => l.startsWith(PREFIX));
  const last = lines.at(-1);
  if (!last) return null;
  return (JSON.parse(last.slice(PREFIX.length)) as { figures: Figures }).figures;
}
