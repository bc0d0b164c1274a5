import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scope } from '../../src/core/context.js';
import type { MediaDoc } from '../../src/core/media/documents.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import type { PublishAttemptDoc } from '../../src/core/publishing/documents.js';
import { ingestUpload } from '../../src/core/media/ingest.js';
import { createUploadedMedia } from '../../src/core/media/upload-media.js';
import { spendPostCap } from '../../src/core/posts/post-cap.js';
import { MIB } from '../../src/core/providers/tiktok/chunk-plan.js';
import { latestAttempt } from '../../src/core/publishing/attempts.js';
import { enqueuePostPublish } from '../../src/core/publishing/schedule.js';
import { tunePublishing } from '../../src/core/publishing/settings.js';
import type { BootstrapResult } from '../../src/core/tenancy/bootstrap.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { freePort } from '../support/spawn.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { connectAccount, systemScope } from '../platforms/support.js';

/**
 * A worker on a test database publishing to the TikTok emulator, and the HTTP app serving the public media
 * URLs the emulator pulls photos from (PUBLIC_BASE_URL = the app's loopback address).
 */
export interface PublishingWorld {
  f: TikTokFixture;
  t: TestDatabase;
  server: TestServer;
  tenant: BootstrapResult;
  scope: Scope;
  close(): Promise<void>;
}

/** What the posting helpers below need of a world: its database and tenant (any network's world has them). */
export type PostingWorld = Pick<PublishingWorld, 't' | 'tenant' | 'scope'>;

/** Per-test limit: a worker on a loaded 2-core machine (FerretDB, Agenda polling) can take a while. */
export const SLOW = { timeout: 120_000 };

/** Fast engine settings: polls and retries in milliseconds, 5 MiB chunks (so 11 MiB is three chunks). */
export const FAST = {
  pollFirstDelayMs: 40,
  pollMaxDelayMs: 300,
  idPollMaxDelayMs: 300,
  retryFirstDelayMs: 100,
  retryMaxDelayMs: 400,
  rateLimitedDelayMs: 150,
  uploadChunkBytes: 5 * MIB,
};

/**
 * `database`: more settings for the world's database (an AI provider, plans). `emulatorClient`: the
 * client knows it talks to the emulator, as under `npm start` without TikTok credentials.
 */
export async function startWorld(
  database: Omit<Parameters<typeof openTestDatabase>[0] & object, 'tiktok' | 'media'> = {},
  options: { emulatorClient?: boolean } = {},
): Promise<PublishingWorld> {
  const restore = tunePublishing(FAST);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const f = await startTikTokFixture({
    allowHttpPullUrls: true,
    verifiedUrlPrefixes: [`${base}/`],
    rateLimits: { status: 10_000 },
  });
  const tiktok = options.emulatorClient ? { ...f.config, emulator: true } : f.config;
  const t = await openTestDatabase({ ...database, tiktok, media: { publicBaseUrl: base } });
  const server = await startTestServer(t, { port });
  await t.startWorker();
  const tenant = await buildTenant(t.deps);
  return {
    f,
    t,
    server,
    tenant,
    scope: systemScope(tenant),
    async close() {
      await t.close();
      await server.stop();
      await f.emulator.stop();
      restore();
    },
  };
}

/** A connected TikTok account: an emulated user (control-API fields) and its platform. */
export async function connectCreator(
  w: PublishingWorld,
  fields: Record<string, unknown> = {},
): Promise<{ openId: string; platform: PlatformDoc }> {
  const account = await w.f.createAccount({ username: `creator.${randomUUID().slice(0, 8)}`, ...fields });
  const platform = await connectAccount(w.t.deps, w.scope, account.openId);
  return { openId: account.openId, platform };
}

/** Stores bytes as a READY media object, the way an upload does (sniffed, probed, hashed). */
export async function storeMedia(w: PostingWorld, bytes: Buffer): Promise<MediaDoc> {
  const { deps } = w.t;
  const file = await ingestUpload(deps.media, Readable.from([bytes]));
  const media = await createUploadedMedia(deps, deps.media, w.scope, file, {});
  return (await deps.db.media.findOne({ _id: media.id }))!;
}

/** Settings a TikTok post needs (Direct Post, public). */
export const PUBLIC_SETTINGS = { content_posting_method: 'DIRECT_POST', privacy_level: 'PUBLIC_TO_EVERYONE' };

/**
 * Inserts a QUEUE root post due now, with a post-cap unit spent as the API spends it, and (unless
 * `enqueue: false`) enqueues its publish job the way the API does.
 */
export async function queuePost(
  w: PostingWorld,
  platform: PlatformDoc,
  media: MediaDoc[],
  overrides: Partial<PostDoc> & { enqueue?: boolean } = {},
): Promise<PostDoc> {
  const { enqueue = true, ...fields } = overrides;
  const now = new Date();
  const _id = fields._id ?? randomUUID();
  const capSpend = await spendPostCap(w.t.deps, w.scope, _id);
  const post: PostDoc = {
    _id,
    workspaceId: w.tenant.workspaceId,
    accountId: w.tenant.accountId,
    groupId: randomUUID(),
    parentPostId: null,
    platformId: platform._id,
    content: 'Hello from Postdeck #test',
    settings: { ...PUBLIC_SETTINGS },
    mediaIds: media.map((m) => m._id),
    state: 'QUEUE',
    scheduledFor: null,
    delayInMinutes: null,
    dueAt: now,
    releaseId: null,
    releaseUrl: null,
    errorText: null,
    capSpend,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
  await w.t.deps.db.posts.insertOne(post);
  if (enqueue) await enqueuePostPublish(w.t.deps, post);
  return post;
}

/** Waits until `check` gives a value (not undefined), polling every `everyMs` (a check over HTTP costs more). */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The post once it reaches one of `states`. */
export function settled(w: PostingWorld, postId: string, states = ['PUBLISHED', 'ERROR'], timeoutMs?: number) {
  return waitFor(
    `post ${postId} to reach ${states.join('/')}`,
    async () => {
      const post = await w.t.deps.db.posts.findOne({ _id: postId });
      return post && states.includes(post.state) ? post : undefined;
    },
    timeoutMs,
  );
}

export function attemptsOf(w: PostingWorld, postId: string): Promise<PublishAttemptDoc[]> {
  return w.t.deps.db.publishAttempts.find({ postId }).sort({ n: 1 }).toArray();
}

export { latestAttempt };

/** What the emulator shows for one account: its publishes and how many init requests it received. */
export interface EmulatorPosts {
  posts: {
    publishId: string;
    kind: string;
    status: string;
    failReason: string | null;
    postIds: string[];
    request: Record<string, unknown>;
    media: { url: string | null; bytes: number; sha256: string | null; format: string | null }[];
    upload: { chunksReceived: number; totalChunkCount: number } | null;
  }[];
  initRequests: Record<string, number>;
}

export async function emulatorPosts(w: PublishingWorld, openId: string): Promise<EmulatorPosts> {
  const response = await fetch(`${w.f.emulator.url}/__control/posts?openId=${encodeURIComponent(openId)}`);
  return (await response.json()) as EmulatorPosts;
}

/** Whether the post's cap unit is still spent (false after a refund). */
export async function capSpent(w: PostingWorld, post: PostDoc): Promise<boolean> {
  return (await w.t.deps.db.ledger.findOne({ _id: post.capSpend!.id })) !== null;
}

/** Calls the emulator's control API (JSON), failing on an error answer. */
export async function control(w: PublishingWorld, path: string, body: unknown, method = 'POST'): Promise<void> {
  const response = await fetch(`${w.f.emulator.url}/__control${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`control ${path} answered ${response.status}: ${await response.text()}`);
}
