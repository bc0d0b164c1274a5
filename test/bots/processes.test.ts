import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openCore, type Core } from '../../src/app/main.js';
import { TIKTOK_CALLBACK_PATH } from '../../src/app/tiktok-setup.js';
import { loadConfig } from '../../src/config.js';
import { loginPollLeaseKey } from '../../src/core/chat/login.js';
import { cardActionLeaseKey } from '../../src/core/chat/recorded-actions.js';
import { claimLease, isLeaseHeld, releaseLease } from '../../src/core/db/leases.js';
import { approveDeviceCode } from '../../src/core/device/approve.js';
import { ingestUpload } from '../../src/core/media/ingest.js';
import { createUploadedMedia } from '../../src/core/media/upload-media.js';
import { startSlackEmulator, SlackSender, type RunningSlackEmulator } from '../../src/emulators/slack/server.js';
import { createLogger } from '../../src/logger.js';
import type { BootstrapResult } from '../../src/core/tenancy/bootstrap.js';
import { buildTenant } from '../support/factories.js';
import { makeJpeg } from '../support/media.js';
import { connectAccount, systemScope } from '../platforms/support.js';
import { lapseLocks, locksLeftBehind, workerRunning } from '../support/dead-locks.js';
import { freePort, spawnPostdeck, waitForOk, type SpawnedPostdeck } from '../support/spawn.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { clickCard, eventually, SIGNING_SECRET } from './slack-support.js';

// The Slack bot in real server processes on one database: two API processes and workers, as deployed.
const PUBLIC_URL = 'http://127.0.0.1:9';
const ANA = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };
let f: TikTokFixture;
let slack: RunningSlackEmulator;
let dir: string;
let env: Record<string, string>;
let core: Core;
let tenant: BootstrapResult;
let apis: string[];
const processes: SpawnedPostdeck[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-bots-'));
  const ports = [await freePort(), await freePort()];
  apis = ports.map((port) => `http://127.0.0.1:${port}`);
  [f, slack] = await Promise.all([
    startTikTokFixture({
      redirectUris: [`${PUBLIC_URL}${TIKTOK_CALLBACK_PATH}`],
      allowHttpPullUrls: true,
      verifiedUrlPrefixes: [`${apis[0]}/`],
    }),
    startSlackEmulator(),
  ]);
  const team = slack.state.addTeam('T0ACME', 'acme');
  env = {
    MONGODB_URI: inject('mongoUri'),
    MONGODB_DB: `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    DATA_DIR: path.join(dir, 'data'),
    PUBLIC_URL,
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    TIKTOK_CLIENT_KEY: f.config.clientKey,
    TIKTOK_CLIENT_SECRET: f.config.clientSecret,
    TIKTOK_AUTH_BASE_URL: f.emulator.url,
    TIKTOK_API_BASE_URL: f.emulator.url,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: team.botToken,
    SLACK_API_URL: slack.apiUrl,
    JOB_POLL_INTERVAL_MS: '200',
    LOG_LEVEL: 'info',
    // Media URLs (card previews, TikTok's pulls) are served by the first API process.
    PUBLIC_BASE_URL: apis[0]!,
  };
  core = await openCore(loadConfig(env, { cwd: dir }), createLogger({ level: 'silent' }));
  tenant = await buildTenant(core.deps);
  for (const [i, port] of ports.entries()) {
    processes.push(spawnPostdeck(`bots-api-${i + 1}`, ['serve', '--role', 'api'], { ...env, PORT: String(port) }));
  }
  await Promise.all(apis.map((api) => waitForOk(`${api}/healthz`, 180_000)));
}, 240_000);

afterAll(async () => {
  for (const spawned of processes) if (spawned.child.exitCode === null) spawned.child.kill('SIGTERM');
  await Promise.all(processes.map((spawned) => spawned.exited));
  await core?.close();
  await Promise.all([slack?.stop(), f?.emulator.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const sender = (n: number) => new SlackSender(`${apis[n % apis.length]}/slack/events`, SIGNING_SECRET);
const startWorker = (name: string) => {
  const worker = spawnPostdeck(`bots-${name}`, ['serve', '--role', 'worker'], env);
  processes.push(worker);
  return worker;
};

function command(text: string) {
  const response = slack.newResponseUrl();
  const fields = {
    team_id: 'T0ACME',
    team_domain: 'acme',
    channel_id: ANA.channelId,
    user_id: ANA.userId,
    user_name: ANA.userName,
    command: '/postdeck',
    text,
    api_app_id: 'A0POSTDECK',
    response_url: response.url,
    trigger_id: randomUUID(),
  };
  return { fields, answers: () => slack.state.responses.get(response.id) ?? [] };
}

describe('the Slack bot across processes', () => {
  it('completes a login whose polling worker was SIGKILLed, once a worker runs again', async () => {
    const first = startWorker('worker-1');
    const login = command('login');
    expect((await sender(0).command(login.fields)).status).toBe(200);
    const shown = await eventually(() => login.answers()[0], 60_000);
    const userCode = /\*([A-Z]+-[A-Z]{4}-[A-Z]{4})\*/.exec(String(shown.text))?.[1];
    expect(userCode).toBeDefined();
    // The worker has polled at least once (the poll lease exists) before it dies.
    const loginDoc = await eventually(() => core.deps.db.chatLogins.findOne({ chatUserId: ANA.userId }));
    await eventually(() => core.deps.db.leases.findOne({ key: loginPollLeaseKey(loginDoc._id) }), 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    // A poll it held lapses at once, once the next worker polls (its 30 s lock goes by).
    const held = await locksLeftBehind(core.database.db, 'chat.poll-login');

    await approveDeviceCode(
      core.deps,
      { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'user', userId: tenant.userId } },
      { userCode: userCode!, address: '127.0.0.1' },
    );
    expect(await core.deps.db.chatLinks.countDocuments({})).toBe(0);
    await workerRunning(startWorker('worker-2'));
    await lapseLocks(core.database.db, held);
    const linked = await eventually(() => login.answers()[1], 120_000);
    expect(String(linked.text)).toContain('Linked to the Postdeck workspace');
    const link = await core.deps.db.chatLinks.findOne({ _id: 'slack:T0ACME' });
    expect(link?.workspaceId).toBe(tenant.workspaceId);
    expect(login.answers()).toHaveLength(2);
  }, 400_000);

  it('posts one card per draft with two API processes and two workers, and publishes once', async () => {
    startWorker('worker-3');
    const here = command('approvals here');
    await sender(1).command(here.fields);
    expect(String((await eventually(() => here.answers()[0], 60_000)).text)).toContain('Draft approvals now go to');

    const platform = await connectAccount(core.deps, systemScope(tenant), (await f.createAccount()).openId);
    const drafts: string[] = [];
    for (let i = 0; i < 6; i++) {
      const file = await ingestUpload(core.deps.media, Readable.from([await makeJpeg(1080, 1920)]));
      const media = await createUploadedMedia(core.deps, core.deps.media, systemScope(tenant), file, {});
      const created = await fetch(`${apis[(i + 1) % 2]}/public/v1/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          platformIds: [platform._id],
          content: `Draft number ${i} across processes`,
          mode: 'draft',
          mediaIds: [media.id],
          settings: { content_posting_method: 'DIRECT_POST', privacy_level: 'SELF_ONLY' },
        }),
      });
      expect(created.status).toBe(201);
      drafts.push(`Draft number ${i} across processes`);
    }
    const cards = () => slack.state.channel(ANA.channelId).filter((m) => m.threadTs === null);
    await eventually(() => cards().length >= drafts.length, 240_000);
    const cardsSeenAt = Date.now();
    expect(
      cards()
        .map((m) => drafts.findIndex((d) => m.text.includes(d)))
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5]);

    const card = cards()[0]!;
    const post = (await core.deps.db.posts.findOne({ content: drafts.find((d) => card.text.includes(d)) }))!;
    // The same approver's double click lands on both API processes.
    const team = slack.state.teams.get('T0ACME')!;
    await Promise.all(
      [0, 1].map((n) => clickCard({ slack, sender: sender(n), team }, card, ANA, 'postdeck_approve', post._id)),
    );
    // The workers poll TikTok's status on the production schedule (after 10 s, then 20 s, 40 s, 60 s
    // more), so on a busy machine a post that missed the first polls is seen published minutes later.
    await eventually(async () => (await core.deps.db.posts.findOne({ _id: post._id }))?.state === 'PUBLISHED', 240_000);
    await eventually(() => slack.state.channel(ANA.channelId).some((m) => m.threadTs === card.ts), 60_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await core.deps.db.publishAttempts.countDocuments({ postId: post._id })).toBe(1);
    expect(slack.state.channel(ANA.channelId).filter((m) => m.threadTs === card.ts)).toHaveLength(1);
    // Both workers took deliveries: 20 s past the cards (a relay sweep), still no late duplicate. The
    // approval above runs meanwhile, so only what is left of the 20 s is waited here.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, cardsSeenAt + 20_000 - Date.now())));
    expect(cards()).toHaveLength(drafts.length);
    // Longer than the waits above together: each wait, not the whole, says what was too slow.
  }, 900_000);

  it('carries out a click whose API process was SIGKILLed after acknowledging it', async () => {
    const card = slack.state.channel(ANA.channelId).find((m) => m.threadTs === null && m.edits.length === 0)!;
    const content = /Draft number \d across processes/.exec(card.text)![0];
    const post = (await core.deps.db.posts.findOne({ content }))!;
    expect(post.state).toBe('DRAFT');
    // Someone else is changing this card, so the API process waits its turn after acknowledging.
    const busy = await claimLease(core.deps.db, `chat-card:slack:T0ACME:${post._id}`, { ttlMs: 120_000 });
    const team = slack.state.teams.get('T0ACME')!;
    const triggerId = `trigger-${randomUUID()}`;
    const click = await clickCard(
      { slack, sender: sender(1), team },
      card,
      ANA,
      'postdeck_reject',
      post._id,
      triggerId,
    );
    expect(click.status).toBe(200);
    const id = `slack:T0ACME:${triggerId}`;
    await eventually(() => isLeaseHeld(core.deps.db, cardActionLeaseKey(id)), 60_000);
    processes[1]!.child.kill('SIGKILL');
    await processes[1]!.exited;
    // Its claims on the click (the record's and its run's) would lapse within 30 s; those seconds go by at
    // once: no live process holds them.
    await core.deps.db.chatCardActions.updateOne({ _id: id }, { $set: { claimedUntil: new Date(0) } });
    await core.deps.db.leases.updateMany(
      { key: cardActionLeaseKey(id), releasedAt: null },
      { $set: { expiresAt: new Date(0) } },
    );
    await releaseLease(core.deps.db, busy!);

    // A worker carries it out once the dead process's claim lapses, and redraws the card.
    await eventually(() => card.text.startsWith('Rejected'), 180_000);
    expect(await core.deps.db.posts.findOne({ _id: post._id })).toBeNull();
    expect(await core.deps.db.chatCardActions.findOne({ _id: id })).toMatchObject({ state: 'done', recovered: true });
    expect(JSON.stringify(card.blocks).match(/rejected it/g)).toHaveLength(1);
  }, 400_000);
});
