/**
 * The authenticated REST hot path against its own floor (npm run bench:auth-path). Three routes on
 * one embedded database, in this process, loaded from a child process in the same run:
 * - bare: a Koa route answering a constant (the framework's ceiling);
 * - raw driver: a Koa route reading the workspace's platforms with the raw driver, the read the
 *   answer really needs, with no authentication;
 * - Postdeck: `GET /public/v1/platforms` with an API key through the real app (request log on, to
 *   /dev/null).
 * Each gets throughput runs (16 requests always in flight) and latency runs at a fixed 200
 * requests a second, in alternating rounds. Goals: Postdeck ≥ 80% of the raw-driver route's throughput, p99 < 10 ms at
 * 200/s and at most 1.5x the raw-driver route's p99.
 */
import Router from '@koa/router';
import Koa from 'koa';
import pino from 'pino';
import { createHttpApp } from '../src/http/app.js';
import { startHttpServer, type RunningHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/logger.js';
import { startInProcess } from './support/in-process.js';
import { runLoad, type LoadResult } from './support/load.js';
import { printSummary } from './support/summary.js';
import { percentile } from './support/util.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RATE = 200;

async function main(): Promise<void> {
  const postdeck = await startInProcess('auth-path');
  const { deps } = postdeck.core;
  const { apiKey, scope } = await postdeck.workspace(2);
  const db = postdeck.core.database.db;

  const bare = new Router().get('/bare', (ctx) => {
    ctx.body = { ok: true };
  });
  const raw = new Router().get('/raw/platforms', async (ctx) => {
    const docs = await db
      .collection('platforms')
      .find({ workspaceId: scope.workspaceId, disabled: false, refreshNeeded: false })
      .sort({ createdAt: 1 })
      .toArray();
    ctx.body = {
      platforms: docs.map(({ _id, displayName, displayHandle }) => ({ id: _id, displayName, displayHandle })),
    };
  });
  const floor = new Koa();
  floor.use(bare.routes()).use(raw.routes());
  const app = createHttpApp({
    deps,
    logger: createLogger({ level: 'info', destination: pino.destination('/dev/null') }),
    publicUrl: 'http://127.0.0.1',
    bodyLimitBytes: 1024 * 1024,
    trustProxy: false,
    checkDatabase: () => Promise.resolve(),
  });
  const servers: RunningHttpServer[] = [
    await startHttpServer(floor, { host: '127.0.0.1', port: 0 }),
    await startHttpServer(app, { host: '127.0.0.1', port: 0 }),
  ];
  const [floorUrl, appUrl] = servers.map((s) => s.url) as [string, string];
  const routes: Array<{ label: string; url: string; headers: Record<string, string> }> = [
    { label: 'bare Koa route', url: `${floorUrl}/bare`, headers: {} },
    { label: 'raw-driver route', url: `${floorUrl}/raw/platforms`, headers: {} },
    {
      label: 'Postdeck GET /platforms',
      url: `${appUrl}/public/v1/platforms`,
      headers: { authorization: `Bearer ${apiKey}` },
    },
  ];
  try {
    for (const route of routes) await runLoad({ ...route, mode: 'closed', seconds: 1 }); // warm-up
    // Rounds alternate the routes, so drift on a shared machine hits each alike; medians are reported.
    const throughput: LoadResult[][] = routes.map(() => []);
    const latency: LoadResult[][] = routes.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, route] of routes.entries()) {
        throughput[i]?.push(await runLoad({ ...route, mode: 'closed', connections: 16, seconds: SECONDS }));
      }
      for (const [i, route] of routes.entries()) {
        latency[i]?.push(await runLoad({ ...route, mode: 'open', rps: RATE, seconds: SECONDS }));
      }
    }
    console.log(
      `database: ${process.env.MONGODB_URI ? 'MONGODB_URI' : 'embedded (FerretDB)'}; ${ROUNDS} alternating rounds of ` +
        `${SECONDS} s at 16 in flight and ${SECONDS} s at ${RATE}/s per route; medians of the rounds`,
    );
    const perSecond = throughput.map((runs) => median(runs.map((r) => r.perSecond)));
    const p50 = latency.map((runs) => median(runs.map((r) => r.p50)));
    const p99 = latency.map((runs) => median(runs.map((r) => r.p99)));
    routes.forEach((route, i) => {
      const failed = [...(throughput[i] ?? []), ...(latency[i] ?? [])].reduce((sum, r) => sum + r.failures, 0);
      console.log(
        `${route.label.padEnd(26)} ${fixed(perSecond[i], 0).padStart(6)} req/s` +
          `   at ${RATE}/s: p50 ${fixed(p50[i], 2)} ms, p99 ${fixed(p99[i], 2)} ms` +
          (failed ? `   ${failed} FAILED` : ''),
      );
    });
    const [bareRate, rawRate, ourRate] = perSecond as [number, number, number];
    const ourP99 = p99[2] as number;
    const ofRaw = ourRate / rawRate;
    console.log(`Postdeck / raw-driver route  ${ofRaw.toFixed(2)}x (goal ≥ 0.80): ${ofRaw >= 0.8 ? 'PASS' : 'MISS'}`);
    console.log(`Postdeck / bare route        ${(ourRate / bareRate).toFixed(3)}x`);
    console.log(
      `Postdeck p99 at ${RATE}/s        ${ourP99.toFixed(2)} ms (goal < 10 ms): ${ourP99 < 10 ? 'PASS' : 'MISS'}`,
    );
    const p99OfRaw = ourP99 / (p99[1] as number);
    console.log(
      `Postdeck p99 / raw-driver p99 ${p99OfRaw.toFixed(2)}x (goal ≤ 1.50): ${p99OfRaw <= 1.5 ? 'PASS' : 'MISS'}`,
    );
    printSummary('auth-path', {
      postdeck_req_per_s: ourRate,
      postdeck_p50_ms: p50[2] as number,
      postdeck_p99_ms: ourP99,
      postdeck_of_raw: ofRaw,
      raw_req_per_s: rawRate,
      raw_p99_ms: p99[1] as number,
      postdeck_p99_of_raw: p99OfRaw,
      bare_req_per_s: bareRate,
    });
  } finally {
    for (const server of servers) await server.stop();
    await postdeck.stop();
  }
}

await main();

function median(values: number[]): number {
  return percentile(values, 50);
}

function fixed(value: number | undefined, digits: number): string {
  return (value ?? Number.NaN).toFixed(digits);
}
