import { spawn } from 'node:child_process';
import path from 'node:path';

/** What one load run measured; latencies in milliseconds. */
export interface LoadResult {
  requests: number;
  failures: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
}

export interface LoadPlan {
  url: string;
  headers?: Record<string, string>;
  /** `closed`: keep `connections` requests in flight (throughput); `open`: start `rps` a second (latency). */
  mode: 'closed' | 'open';
  connections?: number;
  rps?: number;
  seconds: number;
}

/** Runs one load plan from a child process (bench/support/load-process.ts) and returns its figures. */
export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const script = path.resolve('bench/support/load-process.ts');
  const full = { headers: {}, connections: 16, rps: 200, ...plan };
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(full)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the load generator exited ${code}`);
  return JSON.parse(out) as LoadResult;
}
