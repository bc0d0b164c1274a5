import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { report, Tally, type Finding } from './findings.js';
import { fuzzMcp } from './mcp.js';
import { fuzzRest } from './rest.js';
import { runSeed } from './seeds.js';
import { startFuzzWorld, type FuzzWorld } from './world.js';

// `npm run fuzz` runs this file long (thousands of requests, a random seed); `npm test` runs it short
// with a fixed seed. Both fail on any finding. FUZZ_SEED and FUZZ_RUNS override both.
const LONG = process.env.npm_lifecycle_event === 'fuzz';
const RUNS = Number(process.env.FUZZ_RUNS ?? (LONG ? 200 : 3));
const SEED = runSeed(LONG ? Math.floor(Math.random() * 2 ** 31) : 23);
const TIMEOUT = LONG ? 3_600_000 : 600_000;

let world: FuzzWorld;
beforeAll(async () => {
  world = await startFuzzWorld();
});
afterAll(async () => {
  await world?.stop();
});

function judge(findings: Finding[], title: string): void {
  expect(findings.length, report(findings, `${title}: findings (seed ${SEED}, FUZZ_RUNS ${RUNS})`)).toBe(0);
}

describe(`schema-driven fuzz (seed ${SEED})`, () => {
  it(
    'answers every REST operation in openapi.json without 5xx, internal errors, schema violations or unstated refusals',
    async () => {
      const document = (await (await fetch(`${world.server.url}/public/v1/openapi.json`)).json()) as Record<
        string,
        unknown
      >;
      const tally = new Tally();
      const { findings, requests } = await fuzzRest(world, document, { seed: SEED, valid: RUNS, invalid: RUNS, tally });
      console.log(`REST: ${requests} requests, answered:\n${tally.toString()}`);
      expect(requests).toBeGreaterThan(0);
      judge(findings, 'REST fuzz');
    },
    TIMEOUT,
  );

  it(
    'answers every MCP tool in tools/list without -32603, internal errors, schema violations or unstated refusals',
    async () => {
      const mcpRuns = LONG ? Math.max(1, Math.round(RUNS / 8)) : RUNS;
      const tally = new Tally();
      const { findings, calls } = await fuzzMcp(world, { seed: SEED, valid: mcpRuns, invalid: mcpRuns, tally });
      console.log(`MCP: ${calls} calls, answered:\n${tally.toString()}`);
      expect(calls).toBeGreaterThan(0);
      judge(findings, 'MCP fuzz');
    },
    TIMEOUT,
  );
});
