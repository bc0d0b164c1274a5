import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { authorizeOnEmulator, createEmulatedAccount } from '../../src/cli/emulator-consent.js';
import type { Scope } from '../../src/core/context.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { systemScopeFor } from '../../src/core/platforms/system-scope.js';
import { completeTikTokConnection, startTikTokConnection } from '../../src/core/providers/tiktok/connect/connect.js';
import { enqueuePostPublish } from '../../src/core/publishing/schedule.js';
import { bootstrapTenant } from '../../src/core/tenancy/bootstrap.js';
import type { Cluster } from './cluster.js';
import { mapLimit } from './util.js';

/** A workspace ready to post: its API key, its TikTok platforms (one emulated account each) and one photo. */
export interface Tenant {
  scope: Scope;
  apiKey: string;
  /** The workspace owner's user id (who approves a chat login). */
  ownerUserId: string;
  platforms: BenchPlatform[];
  mediaId: string;
}

/**
 * A connected account the bench posts to: TikTok's (openId: the emulator's open_id, posts of the tenant's
 * photo) or, with `network` 'instagram', Instagram's (openId: the emulator's account id), whose posts take
 * their media from `mediaOptions` in turn.
 */
export interface BenchPlatform {
  platformId: string;
  openId: string;
  network?: 'tiktok' | 'instagram';
  mediaOptions?: string[][];
}

/**
 * Creates a workspace on the team plan (3,000 posts a month), connects `accounts` emulated TikTok
 * accounts through core's OAuth path (state, the emulator's consent page, code exchange) and uploads
 * one small JPEG through the API.
 */
export async function seedTenant(cluster: Cluster, accounts: number): Promise<Tenant> {
  const deps = cluster.core.deps;
  const boot = await bootstrapTenant(deps, { workspaceName: `bench-${randomUUID().slice(0, 8)}`, plan: 'team' });
  const scope = await systemScopeFor(deps, boot.workspaceId);
  const platforms = await mapLimit(Array.from({ length: accounts }), 6, async () => {
    const account = await createEmulatedAccount(cluster.emulator.url, { private: false });
    const binding = `bench:${randomUUID()}`;
    const started = await startTikTokConnection(deps, scope, { binding });
    const callback = (await authorizeOnEmulator(started.authorizeUrl, account.openId)).searchParams;
    const result = await completeTikTokConnection(
      deps,
      { state: callback.get('state') ?? '', code: callback.get('code') ?? undefined },
      binding,
    );
    if (result.outcome !== 'connected') throw new Error(`connecting ${account.openId} failed: ${result.description}`);
    return { platformId: result.platform._id, openId: account.openId };
  });
  const mediaId = await uploadJpeg(cluster.apiUrl, boot.apiKey);
  return { scope, apiKey: boot.apiKey, ownerUserId: boot.userId, platforms, mediaId };
}

/** Uploads a JPEG of one colour and size (by default 720×1280, which fits TikTok as it is) through the API; its id. */
export async function uploadJpeg(
  apiUrl: string,
  apiKey: string,
  image: { width: number; height: number; background: string } = { width: 720, height: 1280, background: '#3b6' },
): Promise<string> {
  const jpeg = await sharp({ create: { ...image, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
  const form = new FormData();
  form.set(
    'file',
    new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }),
    `bench-${image.width}x${image.height}.jpg`,
  );
  const answer = await fetch(`${apiUrl}/public/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  if (answer.status !== 201) throw new Error(`media upload answered ${answer.status}: ${await answer.text()}`);
  return ((await answer.json()) as { id: string }).id;
}

/** One post the bench expects: on which account, due when, and the tag in its caption that finds it at TikTok. */
export interface PlannedPost {
  platformId: string;
  openId: string;
  scheduledFor: Date;
  tag: string;
  /** Absent: TikTok. */
  network?: 'tiktok' | 'instagram';
  /** Absent: the tenant's photo. */
  mediaIds?: string[];
}

/** A post as created: its Postdeck id besides the plan. */
export interface CreatedPost extends PlannedPost {
  postId: string;
}

/**
 * Plans `perAccount` posts on every platform, due at evenly spread moments of the minute starting at
 * `windowStart` (one moment per post, shuffled over accounts so no account's posts bunch up).
 */
export function planPosts(tenant: Tenant, perAccount: number, windowStart: Date, windowMs = 60_000): PlannedPost[] {
  const slots: PlannedPost[] = [];
  for (let round = 0; round < perAccount; round++) {
    for (const { mediaOptions, ...p } of tenant.platforms) {
      const mediaIds = mediaOptions?.[round % mediaOptions.length];
      slots.push({ ...p, ...(mediaIds ? { mediaIds } : {}), scheduledFor: windowStart, tag: `bench-${randomUUID()}` });
    }
  }
  const offsets = slots.map((_, i) => Math.floor((i * windowMs) / slots.length));
  shuffle(offsets);
  return slots.map((slot, i) => ({ ...slot, scheduledFor: new Date(windowStart.getTime() + (offsets[i] ?? 0)) }));
}

/** The photo post settings every bench post uses (Direct Post, public, TikTok's defaults otherwise). */
export const BENCH_SETTINGS = { content_posting_method: 'DIRECT_POST', privacy_level: 'PUBLIC_TO_EVERYONE' };

/** A planned post's media and settings: TikTok's photo with BENCH_SETTINGS, or its own media with Instagram's defaults. */
function contentOf(tenant: Tenant, post: PlannedPost): { mediaIds: string[]; settings: Record<string, unknown> } {
  return {
    mediaIds: post.mediaIds ?? [tenant.mediaId],
    settings: post.network === 'instagram' ? {} : { ...BENCH_SETTINGS },
  };
}

/** Whether the posts API is served (F's routes landed): GET /public/v1/posts answers 200. */
export async function postsApiAvailable(cluster: Cluster, tenant: Tenant): Promise<boolean> {
  const answer = await fetch(`${cluster.apiUrl}/public/v1/posts`, {
    headers: { authorization: `Bearer ${tenant.apiKey}` },
  });
  await answer.body?.cancel();
  return answer.status === 200;
}

/** Creates each planned post through POST /public/v1/posts (mode schedule), `concurrency` requests at once. */
export async function createPostsThroughApi(
  cluster: Cluster,
  tenant: Tenant,
  planned: PlannedPost[],
  concurrency: number,
): Promise<CreatedPost[]> {
  return mapLimit(planned, concurrency, async (post) => {
    const answer = await fetch(`${cluster.apiUrl}/public/v1/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        platformIds: [post.platformId],
        content: `Bench post ${post.tag}`,
        mode: 'schedule',
        scheduledFor: post.scheduledFor.toISOString(),
        ...contentOf(tenant, post),
      }),
    });
    const text = await answer.text();
    if (answer.status !== 201) throw new Error(`POST /posts answered ${answer.status}: ${text}`);
    const body = JSON.parse(text) as { results: { status: string; post?: { root: { id: string } } }[] };
    const postId = body.results[0]?.post?.root.id;
    if (!postId) throw new Error(`POST /posts created nothing: ${text}`);
    return { ...post, postId };
  });
}

/**
 * Writes the planned posts straight into `posts` as QUEUE and puts each on the engine's queue with
 * enqueuePostPublish, as the API does after its checks (no post-cap unit is spent: capSpend null).
 */
export async function insertPostsDirectly(cluster: Cluster, tenant: Tenant, planned: PlannedPost[]) {
  const now = new Date();
  const docs: PostDoc[] = planned.map((post) => ({
    _id: randomUUID(),
    workspaceId: tenant.scope.workspaceId,
    accountId: tenant.scope.accountId,
    groupId: randomUUID(),
    parentPostId: null,
    platformId: post.platformId,
    content: `Bench post ${post.tag}`,
    ...contentOf(tenant, post),
    state: 'QUEUE',
    scheduledFor: post.scheduledFor,
    delayInMinutes: null,
    dueAt: post.scheduledFor,
    releaseId: null,
    releaseUrl: null,
    errorText: null,
    capSpend: null,
    createdAt: now,
    updatedAt: now,
  }));
  await cluster.db.posts.insertMany(docs);
  await mapLimit(docs, 8, (doc) => enqueuePostPublish(cluster.core.deps, doc));
  return docs.map((doc, i): CreatedPost => ({ ...(planned[i] as PlannedPost), postId: doc._id }));
}

function shuffle<T>(items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
}
