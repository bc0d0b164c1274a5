/**
 * A load generator in a process of its own, so its work never shares the measured server's event
 * loop. Argument: one JSON object {url, headers, mode: 'closed' | 'open', connections, rps, seconds}.
 * `closed`: `connections` requests always in flight, as fast as answers come (throughput).
 * `open`: requests started at a fixed rate whatever the answers (latency at that rate).
 * Prints one JSON line: {requests, failures, seconds, perSecond, p50, p99, max} (milliseconds).
 */
import { Pool } from 'undici';

interface LoadPlan {
  url: string;
  headers: Record<string, string>;
  mode: 'closed' | 'open';
  connections: number;
  rps: number;
  seconds: number;
}

const plan = JSON.parse(process.argv[2] ?? '{}') as LoadPlan;
const target = new URL(plan.url);
const pool = new Pool(target.origin, { connections: plan.connections, pipelining: 1 });
const latencies: number[] = [];
let failures = 0;

async function once(): Promise<void> {
  const started = performance.now();
  try {
    const answer = await pool.request({ path: target.pathname + target.search, method: 'GET', headers: plan.headers });
    await answer.body.arrayBuffer();
    if (answer.statusCode !== 200) failures += 1;
  } catch {
    failures += 1;
  }
  latencies.push(performance.now() - started);
}

const started = performance.now();
const deadline = started + plan.seconds * 1000;
if (plan.mode === 'closed') {
  await Promise.all(
    Array.from({ length: plan.connections }, async () => {
      while (performance.now() < deadline) await once();
    }),
  );
} else {
  const inFlight: Promise<void>[] = [];
  const gapMs = 1000 / plan.rps;
  for (let i = 0; started + i * gapMs < deadline; i++) {
    const wait = started + i * gapMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(once());
  }
  await Promise.all(inFlight);
}
const seconds = (performance.now() - started) / 1000;
const sorted = latencies.sort((a, b) => a - b);
const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
process.stdout.write(
  `${JSON.stringify({ requests: sorted.length, failures, seconds, perSecond: sorted.length / seconds, p50: at(50), p99: at(99), max: at(100) })}\n`,
);
await pool.close();
