import { randomUUID } from 'node:crypto';
import type { CoreDeps } from '../../src/core/context.js';
import type { MediaDoc } from '../../src/core/media/documents.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import type { PublishAttemptDoc } from '../../src/core/publishing/documents.js';
import { connectAccount, systemScope } from '../platforms/support.js';
import type { TestDatabase } from './db.js';
import { buildTenant } from './factories.js';
import type { TestServer } from './http.js';
import { buildMedia } from './media.js';
import type { TikTokFixture } from './tiktok.js';

export type Tenant = Awaited<ReturnType<typeof buildTenant>>;

/** A post document stored directly (states the API cannot reach by itself: PUBLISHING, PUBLISHED, ERROR). */
export async function buildPost(
  deps: CoreDeps,
  workspaceId: string,
  overrides: Partial<PostDoc> = {},
): Promise<PostDoc> {
  const now = new Date();
  const doc: PostDoc = {
    _id: randomUUID(),
    workspaceId,
    accountId: randomUUID(),
    groupId: randomUUID(),
    parentPostId: null,
    platformId: randomUUID(),
    content: 'A built post',
    settings: { content_posting_method: 'DIRECT_POST', privacy_level: 'SELF_ONLY' },
    mediaIds: [],
    state: 'DRAFT',
    scheduledFor: null,
    delayInMinutes: null,
    dueAt: null,
    releaseId: null,
    releaseUrl: null,
    errorText: null,
    capSpend: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
  await deps.db.posts.insertOne(doc);
  return doc;
}

/** A publishing attempt stored directly, as the engine writes it. */
export async function buildAttempt(
  deps: CoreDeps,
  post: Pick<PostDoc, '_id' | 'workspaceId'>,
  overrides: Partial<PublishAttemptDoc> = {},
): Promise<PublishAttemptDoc> {
  const n = overrides.n ?? 1;
  const at = new Date();
  const doc: PublishAttemptDoc = {
    _id: `${post._id}#${n}`,
    postId: post._id,
    workspaceId: post.workspaceId,
    n,
    worker: 'test-worker',
    claimedAt: at,
    leaseExpiresAt: new Date(at.getTime() + 60_000),
    phase: 'init_answered',
    publishId: 'v_pub_test',
    events: [{ at, what: 'init', detail: 'publish_id v_pub_test' }],
    ...overrides,
  };
  await deps.db.publishAttempts.insertOne(doc);
  return doc;
}

/** A tenant with an emulated TikTok creator connected through the real OAuth flow. */
export async function connectedTenant(
  t: TestDatabase,
  f: TikTokFixture,
  creator: Record<string, unknown> = {},
): Promise<{ tenant: Tenant; platform: PlatformDoc; openId: string }> {
  const tenant = await buildTenant(t.deps);
  const platform = await connectedPlatform(t, f, tenant, creator);
  return { tenant, platform, openId: String(platform.providerAccountId) };
}

/** Another emulated creator connected to `tenant`'s workspace. */
export async function connectedPlatform(
  t: TestDatabase,
  f: TikTokFixture,
  tenant: Tenant,
  creator: Record<string, unknown> = {},
): Promise<PlatformDoc> {
  const account = await f.createAccount(creator);
  return connectAccount(t.deps, systemScope(tenant), account.openId);
}

/** A READY video as uploads store it (1080×1920, 30 s, 30 fps). */
export function buildVideo(deps: CoreDeps, workspaceId: string, overrides: Partial<MediaDoc> = {}): Promise<MediaDoc> {
  return buildMedia(deps, workspaceId, {
    mediaType: 'video',
    mimeType: 'video/mp4',
    size: 2_000_000,
    originalFileName: 'clip.mp4',
    thumbnailMetadata: { width: 1080, height: 1920, durationSec: 30, fps: 30 },
    ...overrides,
  });
}

/** `count` READY JPEG images. */
export function buildImages(deps: CoreDeps, workspaceId: string, count: number): Promise<MediaDoc[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      buildMedia(deps, workspaceId, { thumbnailMetadata: { width: 1080, height: 1350 } }),
    ),
  );
}

/** The settings every valid TikTok post needs. */
export const DIRECT = { content_posting_method: 'DIRECT_POST', privacy_level: 'PUBLIC_TO_EVERYONE' } as const;

/** A valid create body for `platformIds` with one video. */
export function postBody(
  platformIds: string[],
  mediaIds: string[],
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return { platformIds, content: 'A cat #cats', mode: 'now', mediaIds, settings: { ...DIRECT }, ...overrides };
}

/** A JSON call to /public/v1 with the tenant's key; answers the status and the parsed body. */
export async function call(
  server: TestServer,
  apiKey: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  body: Record<string, unknown> & { code?: string; details?: Detail[] };
  text: string;
  headers: Headers;
}> {
  const response = await server.request(`/public/v1${path}`, {
    method,
    ...(apiKey === undefined ? {} : { apiKey }),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as never) : {}, text, headers: response.headers };
}

export interface Detail {
  path: (string | number)[];
  message: string;
  platformId?: string;
}

/** The detail paths of an error body, to compare compactly. */
export function detailPaths(body: { details?: Detail[] }): (string | number)[][] {
  return (body.details ?? []).map((detail) => detail.path);
}

/** The `posts.publish` tasks queued for a post (the due-task lane of the job runner). */
export async function publishJobs(t: TestDatabase, postId: string): Promise<{ runAt: Date }[]> {
  const tasks = await t.deps.db.dueTasks.find({ name: 'posts.publish', done: false }).toArray();
  return tasks.filter((task) => (task.data as { postId?: string }).postId === postId);
}
