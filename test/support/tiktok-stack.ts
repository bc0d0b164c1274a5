import type { PlanTable } from '../../src/core/plans.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { startTestServer, type TestServer } from './http.js';
import { startTikTokFixture, type TikTokFixture } from './tiktok.js';

/** What the HTTP tests of TikTok features stand on: the emulator, a database whose client talks to it, a server. */
export interface TikTokStack {
  f: TikTokFixture;
  t: TestDatabase;
  server: TestServer;
  stop(): Promise<void>;
}

/** `emulatorClient`: the client knows it talks to the emulator, as under `npm start` without TikTok credentials. */
export async function startTikTokStack(
  options: { plans?: PlanTable; emulatorClient?: boolean } = {},
): Promise<TikTokStack> {
  const f = await startTikTokFixture();
  const t = await openTestDatabase({
    tiktok: options.emulatorClient ? { ...f.config, emulator: true } : f.config,
    plans: options.plans,
  });
  const server = await startTestServer(t);
  return {
    f,
    t,
    server,
    async stop() {
      await server.stop();
      await t.close();
      await f.emulator.stop();
    },
  };
}
