import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openCore, type Core } from '../../src/app/main.js';
import { TIKTOK_CALLBACK_PATH } from '../../src/app/tiktok-setup.js';
import { loadConfig } from '../../src/config.js';
import { planCollection } from '../../src/core/insights/collect-job.js';
import { slotDueAt } from '../../src/core/insights/schedule.js';
import { ingestUpload } from '../../src/core/media/ingest.js';
import { createUploadedMedia } from '../../src/core/media/upload-media.js';
import type { BootstrapResult } from '../../src/core/tenancy/bootstrap.js';
import { createLogger } from '../../src/logger.js';
import { connectAccount, systemScope } from '../platforms/support.js';
import { buildTenant } from '../support/factories.js';
import { makeJpeg } from '../support/media.js';
import { freePort, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { emulatorControl, postsOnTikTok } from './collect-support.js';
import { ageCollectors, publishPost } from './support.js';

// The collection on real worker processes: a worker SIGKILLed mid-collection, another taking over.

const PUBLIC_URL = 'http://127.0.0.1:9';
const HOUR_MS = 3_600_000;
const ACCOUNTS = 3;
const PER_ACCOUNT = 25;
let f: TikTokFixture;
let dir: string;
let env: Record<string, string>;
let core: Core;
let tenant: BootstrapResult;
const processes: SpawnedPostdeck[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-collect-'));
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  f = await startTikTokFixture({
    redirectUris: [`${PUBLIC_URL}${TIKTOK_CALLBACK_PATH}`],
    allowHttpPullUrls: true,
    verifiedUrlPrefixes: [`${api}/`],
  });
  env = {
    MONGODB_URI: inject('mongoUri'),
    MONGODB_DB: `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    DATA_DIR: path.join(dir, 'data'),
    PUBLIC_URL,
    PUBLIC_BASE_URL: api,
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    TIKTOK_CLIENT_KEY: f.config.clientKey,
    TIKTOK_CLIENT_SECRET: f.config.clientSecret,
    TIKTOK_AUTH_BASE_URL: f.emulator.url,
    TIKTOK_API_BASE_URL: f.emulator.url,
    JOB_POLL_INTERVAL_MS: '200',
    LOG_LEVEL: 'info',
  };
  // This process's core shares the database and keys with the spawned ones (it never runs jobs).
  core = await openCore(loadConfig(env, { cwd: dir }), createLogger({ level: 'silent' }));
  tenant = await buildTenant(core.deps);
  // The API process serves the photo TikTok pulls for the posts below.
  processes.push(spawnPostdeck('collect-api', ['serve', '--role', 'api'], { ...env, PORT: String(port) }));
  await waitForOk(`${api}/healthz`, 180_000);
}, 240_000);

afterAll(async () => {
  for (const spawned of processes) if (spawned.child.exitCode === null) spawned.child.kill('SIGTERM');
  await Promise.all(processes.map((spawned) => spawned.exited));
  await core.close();
  await f.emulator.stop();
  rmSync(dir, { recursive: true, force: true });
});

function startWorker(name: string): SpawnedPostdeck {
  const worker = spawnPostdeck(`collect-${name}`, ['serve', '--role', 'worker'], { ...env, PORT: '0' });
  processes.push(worker);
  return worker;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 240_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * Moves the SIGKILLed worker's task claims back past their 30 s, as if those seconds had gone by: the next
 * worker takes its runs over at its first look. Only called while no worker runs, so no live claim moves.
 */
async function lapseDeadWorkersClaims(): Promise<void> {
  await core.deps.db.leases.updateMany(
    { key: { $regex: '^task:' }, releasedAt: null, expiresAt: { $gt: new Date() } },
    { $set: { expiresAt: new Date(0) } },
  );
}

/** Each post's `slot` was taken before the next slot fell due: no gap between snapshots is longer than one interval. */
async function expectEachSlotInItsInterval(postIds: string[], slot: number): Promise<void> {
  const records = await core.deps.db.postInsights.find({ _id: { $in: postIds } }).toArray();
  for (const record of records) {
    const snapshot = await core.deps.db.postSnapshots.findOne({ _id: `${record._id}#${slot}` });
    expect(snapshot).not.toBeNull();
    expect(snapshot!.takenAt.getTime()).toBeLessThan(slotDueAt(record.publishedAt, slot + 1).getTime());
  }
}

describe('collection across worker processes', () => {
  it(
    'survives a worker SIGKILLed mid-collection: no duplicate snapshot, no slot missed',
    { timeout: 600_000 },
    async () => {
      const { deps } = core;
      const scope = systemScope(tenant);
      const file = await ingestUpload(deps.media, Readable.from([await makeJpeg(320, 240)]));
      const image = (await deps.db.media.findOne({
        _id: (await createUploadedMedia(deps, deps.media, scope, file, {})).id,
      }))!;
      const postIds: string[] = [];
      for (let i = 0; i < ACCOUNTS; i++) {
        const platform = await connectAccount(deps, scope, (await f.createAccount()).openId);
        for (const releaseId of await postsOnTikTok(f, deps, platform, image, PER_ACCOUNT)) {
          postIds.push((await publishPost(deps, tenant, platform._id, { releaseId }))._id);
        }
      }
      const total = postIds.length;
      const count = () => deps.db.postSnapshots.countDocuments({ postId: { $in: postIds } });

      // Round 1 (slot 0): the published events queue the runs; the worker dies once the first snapshots are in.
      const first = startWorker('worker-1');
      const atKill = await until('the first snapshots', async () => {
        const n = await count();
        return n > 0 ? n : undefined;
      });
      first.child.kill('SIGKILL');
      await first.exited;
      expect(atKill).toBeLessThan(total);
      await lapseDeadWorkersClaims();
      startWorker('worker-2');
      await until('slot 0 of every post', async () => ((await count()) >= total ? true : undefined));

      await expectEachSlotInItsInterval(postIds, 0);

      // Round 2 (slot 1), an hour on: killed again mid-run, a third worker finishes it. The runs settle first
      // (each leaves its account's next due time), so the hour moves those too.
      await until('every run to settle', async () =>
        (await deps.db.insightCollectors.countDocuments({ queuedAt: { $ne: null } })) === 0 ? true : undefined,
      );
      await emulatorControl(f, 'POST', '/clock', { advanceMs: HOUR_MS });
      const aged = await deps.db.postInsights.find({ _id: { $in: postIds } }).toArray();
      await ageCollectors(
        deps,
        aged.map((record) => record.platformId),
        HOUR_MS,
      );
      for (const record of aged) {
        await deps.db.postInsights.updateOne(
          { _id: record._id },
          {
            $set: {
              publishedAt: new Date(record.publishedAt.getTime() - HOUR_MS),
              nextDueAt: new Date(record.nextDueAt!.getTime() - HOUR_MS),
            },
          },
        );
      }
      const second = processes[processes.length - 1]!;
      await planCollection(deps);
      await until('the next snapshots', async () => ((await count()) > total ? true : undefined));
      second.child.kill('SIGKILL');
      await second.exited;
      await lapseDeadWorkersClaims();
      startWorker('worker-3');
      await until('slot 1 of every post', async () => ((await count()) >= 2 * total ? true : undefined));

      const snapshots = await deps.db.postSnapshots.find({ postId: { $in: postIds } }).toArray();
      expect(snapshots).toHaveLength(2 * total);
      const records = await deps.db.postInsights.find({ _id: { $in: postIds } }).toArray();
      for (const record of records) {
        const own = snapshots.filter((s) => s.postId === record._id).sort((a, b) => a.slot - b.slot);
        expect(own.map((s) => s.slot)).toEqual([0, 1]);
        expect(record).toMatchObject({ status: 'collecting', nextSlot: 2, snapshotCount: 2 });
      }
      await expectEachSlotInItsInterval(postIds, 1);
    },
  );
});
