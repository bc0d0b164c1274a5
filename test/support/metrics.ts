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

/** The whole exposition parsed by a Prometheus text parser (not ours); it throws on any line it cannot read. */
export function parseExposition(text: string): Promise<PromMetrics> {
  return getMetricsFromIterator(text.split('\n')[Symbol.iterator]());
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
