import { getMetricsFromIterator, type PromMetric, type PromMetrics } from 'prom2javascript';
import type { CoreDeps } from '../../src/core/context.js';
import { createMetricsRegistry, type MetricsRegistry } from '../../src/app/metrics/registry.js';
import type { TestDatabase } from './db.js';

/** A test database whose core reports to a fresh prom-client registry, as the composition root wires it. */
export function withMetrics(database: TestDatabase): { t: TestDatabase; registry: MetricsRegistry } {
  const registry = createMetricsRegistry({
    db: database.deps.db,
    ping: async () => {
      await database.db.command({ ping: 1 });
    },
  });
  const deps: CoreDeps = { ...database.deps, metrics: registry };
  return { t: { ...database, deps }, registry };
}

/**
 * prom-client writes a gauge that has no reading (event-loop lag before its first sample, a gauge
 * the database could not answer) as `Nan`, which Prometheus reads (Go's ParseFloat) and this parser
 * does not know: such unlabelled samples are set aside, checked for shape, and added back as NaN.
 */
const NAN_SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*) Nan$/;

/** The whole exposition parsed by a Prometheus text parser (not ours); it throws on any line it cannot read. */
export async function parseExposition(text: string): Promise<PromMetrics> {
  const lines = text.split('\n');
  const families = await getMetricsFromIterator(lines.filter((line) => !NAN_SAMPLE.test(line))[Symbol.iterator]());
  for (const line of lines) {
    const name = NAN_SAMPLE.exec(line)?.[1];
    if (name === undefined) continue;
    const family = families[name];
    if (family?.type !== 'gauge') throw new Error(`NaN outside a declared gauge: ${line}`);
    (family.data as { labels: Record<string, string>; value: number }[]).push({ labels: {}, value: Number.NaN });
  }
  return families;
}

/** The summed value (a histogram's count) of a family's samples whose labels include `labels`; 0 when none. */
export function sampleValue(families: PromMetrics, name: string, labels: Record<string, string>): number {
  const family: PromMetric | undefined = families[name];
  if (!family) throw new Error(`no metric family ${name}`);
  const samples = family.data as { labels: Record<string, string>; value?: number; count?: number }[];
  return samples
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + (sample.count ?? sample.value ?? 0), 0);
}
