import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostGroupSchema } from '../../src/core/posts/schema.js';
import { control } from '../platforms/support.js';
import type { TestDatabase } from '../support/db.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import type { TestServer } from '../support/http.js';
import { startTikTokStack, type TikTokStack } from '../support/tiktok-stack.js';
import { buildMedia } from '../support/media.js';
import {
  buildImages,
  buildVideo,
  call,
  connectedPlatform,
  connectedTenant,
  detailPaths,
  DIRECT,
  postBody,
  publishJobs,
  type Detail,
} from '../support/posts.js';
import { expireCreatorInfo, type TikTokFixture } from '../support/tiktok.js';

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let stack: TikTokStack;
beforeAll(async () => {
  stack = await startTikTokStack();
  ({ f, t, server } = stack);
});
afterAll(() => stack.stop());

type Group = { root: Record<string, unknown> & { id: string }; children: unknown[] };
type Results = { results: { platformId: string; status: string; post?: Group; error?: { code: string } }[] };

/** A connected tenant with one video, and a create call for it. */
async function fixture(creator: Record<string, unknown> = {}) {
  const { tenant, platform, openId } = await connectedTenant(t, f, creator);
  const video = await buildVideo(t.deps, tenant.workspaceId);
  const create = (overrides: Record<string, unknown> = {}) =>
    call(server, tenant.apiKey, 'POST', '/posts', postBody([platform._id], [video._id], overrides));
  return { tenant, platform, openId, video, create };
}

describe('POST /public/v1/posts: creating', () => {
  it('queues a now post: 201, one created group in QUEUE with the spec fields, and a publish job due now', async () => {
    const { platform, video, create } = await fixture();
    const before = Date.now();
    const response = await create();
    expect(response.status).toBe(201);
    const body = response.body as unknown as Results;
    expect(body.results).toHaveLength(1);
    const entry = body.results[0]!;
    expect(entry).toMatchObject({ platformId: platform._id, status: 'created' });
    const group = PostGroupSchema.parse(entry.post);
    expect(group).toEqual(entry.post);
    expect(group.children).toEqual([]);
    expect(group.root).toMatchObject({
      integrationId: platform._id,
      parentPostId: null,
      content: 'A cat #cats',
      state: 'QUEUE',
      mediaIds: [video._id],
      delayInMinutes: null,
      releaseId: null,
      releaseUrl: null,
      errorText: null,
      attempts: [],
    });
    expect(Date.parse(group.root.scheduledFor!)).toBeGreaterThanOrEqual(before - 5);
    const stored = await t.deps.db.posts.findOne({ _id: group.root.id });
    expect(stored).toMatchObject({ state: 'QUEUE', groupId: group.root.groupId, capSpend: expect.any(Object) });
    const jobs = await publishJobs(t, group.root.id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.runAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('schedules a post for its time, with the job due then', async () => {
    const { create } = await fixture();
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const response = await create({ mode: 'schedule', scheduledFor: at });
    expect(response.status).toBe(201);
    const root = (response.body as unknown as Results).results[0]!.post!.root;
    expect(root).toMatchObject({ state: 'QUEUE', scheduledFor: at });
    expect((await t.deps.db.posts.findOne({ _id: root.id }))?.dueAt?.toISOString()).toBe(at);
    const jobs = await publishJobs(t, root.id);
    expect(jobs.map((job) => job.runAt.toISOString())).toEqual([at]);
  });

  it('saves a draft without a time, a cap unit or a job, ignoring scheduledFor', async () => {
    const { create } = await fixture();
    const response = await create({ mode: 'draft', scheduledFor: new Date(Date.now() + 60_000).toISOString() });
    expect(response.status).toBe(201);
    const root = (response.body as unknown as Results).results[0]!.post!.root;
    expect(root).toMatchObject({ state: 'DRAFT', scheduledFor: null });
    expect(await t.deps.db.posts.findOne({ _id: root.id })).toMatchObject({ dueAt: null, capSpend: null });
    expect(await publishJobs(t, root.id)).toEqual([]);
  });

  it('writes out the interaction defaults (off) and keeps what was allowed', async () => {
    const { create } = await fixture();
    const video = await create();
    expect((video.body as unknown as Results).results[0]!.post!.root.settings).toEqual({
      ...DIRECT,
      disable_comment: true,
      disable_duet: true,
      disable_stitch: true,
    });
    const allowed = await create({ settings: { ...DIRECT, disable_comment: false } });
    expect((allowed.body as unknown as Results).results[0]!.post!.root.settings).toMatchObject({
      disable_comment: false,
      disable_duet: true,
    });
  });

  it('creates a photo post from JPEG images, with only the photo interaction default', async () => {
    const { tenant, platform } = await connectedTenant(t, f);
    const images = await buildImages(t.deps, tenant.workspaceId, 35);
    const response = await call(
      server,
      tenant.apiKey,
      'POST',
      '/posts',
      postBody(
        [platform._id],
        images.map((image) => image._id),
        { settings: { ...DIRECT, title: 'Cats' } },
      ),
    );
    expect(response.status).toBe(201);
    const root = (response.body as unknown as Results).results[0]!.post!.root;
    expect(root.mediaIds).toEqual(images.map((image) => image._id));
    expect(root.settings).toEqual({ ...DIRECT, title: 'Cats', disable_comment: true });
  });
});

describe('POST /public/v1/posts: validation (400 invalid_request, the path at the field)', () => {
  async function refused(
    response: Promise<{ status: number; body: { code?: string; details?: Detail[] } }>,
  ): Promise<Detail[]> {
    const answer = await response;
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('invalid_request');
    return answer.body.details ?? [];
  }

  it('refuses a body without mode, with no or duplicate platforms, and schedule without a future time', async () => {
    const { platform, create } = await fixture();
    expect(detailPaths({ details: await refused(create({ mode: undefined })) })).toEqual([['body', 'mode']]);
    expect(detailPaths({ details: await refused(create({ mode: 'later' })) })).toEqual([['body', 'mode']]);
    expect(detailPaths({ details: await refused(create({ platformIds: [] })) })).toEqual([['body', 'platformIds']]);
    expect(detailPaths({ details: await refused(create({ platformIds: [platform._id, platform._id] })) })).toEqual([
      ['body', 'platformIds', 1],
    ]);
    expect(detailPaths({ details: await refused(create({ platformIds: ['nope'] })) })).toEqual([
      ['body', 'platformIds', 0],
    ]);
    expect(detailPaths({ details: await refused(create({ mode: 'schedule' })) })).toEqual([['body', 'scheduledFor']]);
    const past = await refused(create({ mode: 'schedule', scheduledFor: new Date(Date.now() - 60_000).toISOString() }));
    expect(past).toEqual([{ path: ['body', 'scheduledFor'], message: expect.stringMatching(/future/) }]);
    expect(detailPaths({ details: await refused(create({ mode: 'schedule', scheduledFor: 'tomorrow' })) })).toEqual([
      ['body', 'scheduledFor'],
    ]);
    expect(await t.deps.db.posts.countDocuments({ platformId: platform._id })).toBe(0);
  });

  it('refuses media that is missing, foreign, not READY, not JPEG/WebP, none, 36 images, or mixed', async () => {
    const { tenant, platform, create } = await fixture();
    const other = await buildTenant(t.deps);
    const foreign = await buildVideo(t.deps, other.workspaceId);
    const pending = await buildVideo(t.deps, tenant.workspaceId, { status: 'PENDING' });
    const png = await buildMedia(t.deps, tenant.workspaceId, { mimeType: 'image/png' });
    const [image] = await buildImages(t.deps, tenant.workspaceId, 1);
    const video = await buildVideo(t.deps, tenant.workspaceId);

    const missing = await refused(create({ mediaIds: [randomUUID()] }));
    expect(missing).toContainEqual({ path: ['body', 'mediaIds', 0], message: expect.stringMatching(/not found/) });
    const theirs = await refused(create({ mediaIds: [foreign._id] }));
    expect(theirs).toContainEqual({ path: ['body', 'mediaIds', 0], message: expect.stringMatching(/not found/) });
    expect(await refused(create({ mediaIds: [pending._id] }))).toEqual([
      { path: ['body', 'mediaIds', 0], message: expect.stringMatching(/PENDING; only READY/) },
    ]);
    expect(await refused(create({ mediaIds: [image!._id, png._id] }))).toEqual([
      { path: ['body', 'mediaIds', 1], message: expect.stringMatching(/JPEG or WebP/) },
    ]);
    expect(detailPaths({ details: await refused(create({ mediaIds: [] })) })).toEqual([['body', 'mediaIds']]);
    expect(detailPaths({ details: await refused(create({ mediaIds: undefined })) })).toEqual([['body', 'mediaIds']]);
    const many = await buildImages(t.deps, tenant.workspaceId, 36);
    expect(await refused(create({ mediaIds: many.map((m) => m._id), settings: { ...DIRECT } }))).toEqual([
      { path: ['body', 'mediaIds'], message: expect.stringMatching(/1 to 35 images, not 36/) },
    ]);
    expect(await refused(create({ mediaIds: [video._id, image!._id] }))).toEqual([
      { path: ['body', 'mediaIds'], message: expect.stringMatching(/never both/) },
    ]);
    // The known ids keep their own index when an unknown one stands before them.
    const shifted = await refused(create({ mediaIds: [randomUUID(), image!._id, png._id] }));
    expect(detailPaths({ details: shifted })).toEqual([
      ['body', 'mediaIds', 0],
      ['body', 'mediaIds', 2],
    ]);
    expect(await t.deps.db.posts.countDocuments({ platformId: platform._id })).toBe(0);
  });

  it('counts content in UTF-16 code units: 1100 emoji fit a video caption, 1101 do not', async () => {
    const { create } = await fixture();
    expect((await create({ content: '😀'.repeat(1100) })).status).toBe(201);
    expect(await refused(create({ content: '😀'.repeat(1101) }))).toEqual([
      { path: ['body', 'content'], message: expect.stringMatching(/2202 UTF-16 code units.*at most 2200/) },
    ]);
  });

  it("refuses a privacy level that is no longer one of the creator's current options", async () => {
    const { openId, create } = await fixture();
    expect((await create()).status).toBe(201);
    await control(f, `/accounts/${openId}`, { privacyLevelOptions: ['MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'] }, 'PATCH');
    await expireCreatorInfo(t.deps);
    expect(await refused(create())).toEqual([
      {
        path: ['body', 'settings', 'privacy_level'],
        message: expect.stringMatching(/current options: MUTUAL_FOLLOW_FRIENDS, SELF_ONLY/),
      },
    ]);
    expect(await refused(create({ settings: { content_posting_method: 'DIRECT_POST' } }))).toEqual([
      { path: ['body', 'settings', 'privacy_level'], message: expect.stringMatching(/required and has no default/) },
    ]);
    expect((await create({ settings: { ...DIRECT, privacy_level: 'SELF_ONLY' } })).status).toBe(201);
  });

  it('requires content_posting_method DIRECT_POST and settings at all', async () => {
    const { create } = await fixture();
    expect(await refused(create({ settings: { privacy_level: 'SELF_ONLY' } }))).toEqual([
      { path: ['body', 'settings', 'content_posting_method'], message: expect.stringMatching(/required/) },
    ]);
    expect(
      detailPaths({
        details: await refused(create({ settings: { ...DIRECT, content_posting_method: 'MEDIA_UPLOAD' } })),
      }),
    ).toEqual([['body', 'settings', 'content_posting_method']]);
    expect(detailPaths({ details: await refused(create({ settings: undefined })) })).toEqual([['body', 'settings']]);
    expect(detailPaths({ details: await refused(create({ settings: { ...DIRECT, colour: 'red' } })) })).toEqual([
      ['body', 'settings', 'colour'],
    ]);
  });

  it('refuses turning on an interaction the creator has turned off', async () => {
    const { create } = await fixture({ commentDisabled: true });
    expect(await refused(create({ settings: { ...DIRECT, disable_comment: false } }))).toEqual([
      { path: ['body', 'settings', 'disable_comment'], message: expect.stringMatching(/turned comments off/) },
    ]);
    expect((await create()).status).toBe(201);
  });

  it('refuses thread replies with the reason', async () => {
    const { create } = await fixture();
    expect(await refused(create({ threadReplies: [{ text: 'more cats' }] }))).toEqual([
      { path: ['body', 'threadReplies'], message: 'TikTok does not support thread replies; send the post alone' },
    ]);
    expect(detailPaths({ details: await refused(create({ threadReplies: [{ delayInMinutes: 5 }] })) })).toEqual([
      ['body', 'threadReplies', 0, 'text'],
    ]);
  });

  it('refuses a creator who cannot post now, at the platform', async () => {
    const { create } = await fixture({ canPost: false });
    expect(await refused(create())).toEqual([
      { path: ['body', 'platformIds', 0], message: expect.stringMatching(/cannot post now/) },
    ]);
  });
});

describe('POST /public/v1/posts: platforms one by one', () => {
  it('creates for the good platform and reports the disabled, foreign and invalid ones (201)', async () => {
    const { tenant, platform, video } = await fixture();
    const disabled = await buildPlatform(t.deps, tenant.workspaceId, { disabled: true });
    const other = await buildTenant(t.deps);
    const foreign = await buildPlatform(t.deps, other.workspaceId);
    const selfOnly = await connectedPlatform(t, f, tenant, { privacyLevelOptions: ['SELF_ONLY'] });
    const response = await call(
      server,
      tenant.apiKey,
      'POST',
      '/posts',
      postBody([disabled._id, platform._id, foreign._id, selfOnly._id], [video._id]),
    );
    expect(response.status).toBe(201);
    const results = (response.body as unknown as Results).results;
    expect(results.map((r) => [r.platformId, r.status])).toEqual([
      [disabled._id, 'failed'],
      [platform._id, 'created'],
      [foreign._id, 'failed'],
      [selfOnly._id, 'failed'],
    ]);
    expect(results[0]!.error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/disconnected/) });
    expect(results[2]!.error).toMatchObject({ code: 'not_found' });
    expect(results[3]!.error).toMatchObject({
      code: 'invalid_request',
      details: [{ path: ['body', 'settings', 'privacy_level'], message: expect.any(String) }],
    });
    expect(await t.deps.db.posts.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);
  });

  it('answers the failure itself when every platform failed: one code shared, else invalid_request', async () => {
    const { tenant, platform, video } = await fixture();
    const other = await buildTenant(t.deps);
    const foreign = await buildPlatform(t.deps, other.workspaceId);
    const alone = await call(server, tenant.apiKey, 'POST', '/posts', postBody([foreign._id], [video._id]));
    expect(alone.status).toBe(404);
    expect(alone.body.code).toBe('not_found');

    const second = await connectedPlatform(t, f, tenant);
    const bothInvalid = await call(
      server,
      tenant.apiKey,
      'POST',
      '/posts',
      postBody([platform._id, second._id], [video._id], { settings: { ...DIRECT, privacy_level: 'NOBODY' } }),
    );
    expect(bothInvalid.status).toBe(400);
    expect(bothInvalid.body.details).toEqual([
      { path: ['body', 'settings', 'privacy_level'], message: expect.any(String), platformId: platform._id },
      { path: ['body', 'settings', 'privacy_level'], message: expect.any(String), platformId: second._id },
    ]);

    const disabled = await buildPlatform(t.deps, tenant.workspaceId, { refreshNeeded: true });
    const mixed = await call(
      server,
      tenant.apiKey,
      'POST',
      '/posts',
      postBody([foreign._id, disabled._id], [video._id]),
    );
    expect(mixed.status).toBe(400);
    expect(mixed.body).toMatchObject({
      code: 'invalid_request',
      details: [
        { path: ['body', 'platformIds', 0], message: 'Platform not found', platformId: foreign._id },
        { path: ['body', 'platformIds', 1], message: expect.stringMatching(/Reconnect/), platformId: disabled._id },
      ],
    });
    const twoForeign = await buildPlatform(t.deps, other.workspaceId);
    const shared = await call(
      server,
      tenant.apiKey,
      'POST',
      '/posts',
      postBody([foreign._id, twoForeign._id], [video._id]),
    );
    expect(shared.status).toBe(404);
    expect(await t.deps.db.posts.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
  });
});
