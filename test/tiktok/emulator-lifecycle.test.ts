import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, connectRaw, controlCall, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { buildMp4 } from '../support/video.js';

const VIDEO = '/v2/post/publish/video/init/';
const INBOX = '/v2/post/publish/inbox/video/init/';
const STATUS = '/v2/post/publish/status/fetch/';

let f: TikTokFixture;
let url: string;
beforeAll(async () => {
  f = await startTikTokFixture({ rateLimits: { videoInit: 1000, inboxInit: 1000, status: 100_000 } });
  url = f.emulator.url;
});
afterAll(async () => {
  await f.emulator.stop();
});

const file = buildMp4({ payloadBytes: 5000 });
const fileSource = { source: 'FILE_UPLOAD', video_size: file.length, chunk_size: file.length, total_chunk_count: 1 };

/** Inits a one-chunk upload (Direct Post with `privacy`, or inbox when null); sends the bytes unless `send` is false. */
async function publish(
  token: string,
  privacy: string | null = 'PUBLIC_TO_EVERYONE',
  base = url,
  send = true,
): Promise<{ publishId: string; uploadUrl: string }> {
  const answer = privacy
    ? await apiCall(base, token, VIDEO, { post_info: { privacy_level: privacy }, source_info: fileSource })
    : await apiCall(base, token, INBOX, { source_info: fileSource });
  expect(answer.status).toBe(200);
  const data = answer.json.data as { publish_id: string; upload_url: string };
  if (send) await putWhole(data.upload_url, 201);
  return { publishId: data.publish_id, uploadUrl: data.upload_url };
}

async function putWhole(uploadUrl: string, expected: number): Promise<void> {
  const response = await fetch(uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'video/mp4', 'content-range': `bytes 0-${file.length - 1}/${file.length}` },
    body: new Uint8Array(file),
  });
  expect(response.status).toBe(expected);
}

async function status(token: string, publishId: string, base = url) {
  const answer = await apiCall(base, token, STATUS, { publish_id: publishId });
  return { text: answer.text, data: answer.json.data! };
}

async function post(publishId: string, base = url): Promise<Record<string, unknown>> {
  return (await (await controlCall(base, 'GET', `/__control/posts/${publishId}`)).json()) as Record<string, unknown>;
}

describe('post ids', () => {
  it('answers a public post id as a bare 19-digit JSON number, exact as a string in the control API', async () => {
    const { token } = await connectRaw(url);
    const { publishId } = await publish(token);
    const { text } = await status(token, publishId);
    const bare = /"publicaly_available_post_id":\[(\d+)\]/.exec(text)?.[1];
    expect(bare).toMatch(/^7\d{18}$/);
    expect(BigInt(bare!)).toBeGreaterThan(2n ** 53n);
    expect((await post(publishId)).postIds).toEqual([bare]);
    // What JSON.parse makes of it is not the id: the reason clients must parse it as a string.
    expect(
      String(
        (JSON.parse(text) as { data: { publicaly_available_post_id: number[] } }).data.publicaly_available_post_id[0],
      ),
    ).not.toBe(bare);
  });

  it('gives no id to a post that is not PUBLIC_TO_EVERYONE', async () => {
    const { token } = await connectRaw(url);
    const { publishId } = await publish(token, 'MUTUAL_FOLLOW_FRIENDS');
    expect((await status(token, publishId)).data).toEqual({
      status: 'PUBLISH_COMPLETE',
      publicaly_available_post_id: [],
      uploaded_bytes: file.length,
    });
    expect((await post(publishId)).postIds).toEqual([]);
  });
});

describe('nextPublish directives', () => {
  it('slow moderation: PUBLISH_COMPLETE with [] for N polls, then the id', async () => {
    const { openId, token } = await connectRaw(url);
    await controlCall(url, 'PATCH', `/__control/accounts/${openId}`, { nextPublish: { moderationPolls: 3 } });
    const { publishId } = await publish(token);
    const emptyPoll = { status: 'PUBLISH_COMPLETE', publicaly_available_post_id: [] };
    for (let i = 0; i < 2; i += 1) expect((await status(token, publishId)).data).toMatchObject(emptyPoll);
    expect((await post(publishId)).moderation).toBe('pending');
    expect((await status(token, publishId)).data).toMatchObject(emptyPoll);
    expect((await status(token, publishId)).text).toMatch(/"publicaly_available_post_id":\[7\d{18}\]/);
    expect((await post(publishId)).moderation).toBe('passed');
  });

  it('a processing hold keeps PROCESSING_UPLOAD for N polls, and another for M ms', async () => {
    const { openId, token } = await connectRaw(url);
    await controlCall(url, 'PATCH', `/__control/accounts/${openId}`, { nextPublish: { processingPolls: 2 } });
    const first = await publish(token);
    expect((await status(token, first.publishId)).data.status).toBe('PROCESSING_UPLOAD');
    expect((await status(token, first.publishId)).data).toMatchObject({
      status: 'PROCESSING_UPLOAD',
      uploaded_bytes: file.length,
    });
    expect((await status(token, first.publishId)).data.status).toBe('PUBLISH_COMPLETE');

    // Long enough that the first poll comes inside it on a busy machine; then polled until done.
    const holdMs = 5_000;
    await controlCall(url, 'PATCH', `/__control/accounts/${openId}`, { nextPublish: { processingMs: holdMs } });
    const started = Date.now();
    const second = await publish(token);
    expect((await status(token, second.publishId)).data.status).toBe('PROCESSING_UPLOAD');
    let done = await status(token, second.publishId);
    while (done.data.status === 'PROCESSING_UPLOAD' && Date.now() - started < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      done = await status(token, second.publishId);
    }
    expect(done.data.status).toBe('PUBLISH_COMPLETE');
    expect(Date.now() - started).toBeGreaterThanOrEqual(holdMs - 50);
  });

  it('fails the next publish with the directed fail_reason, once', async () => {
    const { openId, token } = await connectRaw(url);
    const patch = await controlCall(url, 'PATCH', `/__control/accounts/${openId}`, {
      nextPublish: { failReason: 'spam_risk_text' },
    });
    expect(((await patch.json()) as { nextPublish: unknown }).nextPublish).toEqual({ failReason: 'spam_risk_text' });
    const failed = await publish(token);
    expect((await status(token, failed.publishId)).data).toEqual({
      status: 'FAILED',
      fail_reason: 'spam_risk_text',
      publicaly_available_post_id: [],
      uploaded_bytes: file.length,
    });
    const account = (await (await controlCall(url, 'GET', `/__control/accounts/${openId}`)).json()) as {
      nextPublish: unknown;
    };
    expect(account.nextPublish).toBeNull();
    expect((await status(token, (await publish(token)).publishId)).data.status).toBe('PUBLISH_COMPLETE');
  });

  it('refuses an unknown fail reason in the directive', async () => {
    const { openId } = await connectRaw(url);
    const patch = await controlCall(url, 'PATCH', `/__control/accounts/${openId}`, {
      nextPublish: { failReason: 'nope' },
    });
    expect(patch.status).toBe(400);
  });
});

describe('inbox and the "user posts in the app" hook', () => {
  it('moves SEND_TO_USER_INBOX to PUBLISH_COMPLETE, with one id per post when public', async () => {
    const { token } = await connectRaw(url);
    const { publishId } = await publish(token, null);
    expect((await status(token, publishId)).data.status).toBe('SEND_TO_USER_INBOX');
    const hook = await controlCall(url, 'POST', `/__control/posts/${publishId}/user-posts`, { postCount: 2 });
    expect(hook.status).toBe(200);
    const { text, data } = await status(token, publishId);
    expect(data.status).toBe('PUBLISH_COMPLETE');
    expect(text).toMatch(/"publicaly_available_post_id":\[7\d{18},7\d{18}\]/);
    const again = await controlCall(url, 'POST', `/__control/posts/${publishId}/user-posts`, {});
    expect(again.status).toBe(409);
  });

  it('completes without ids when the user posts privately', async () => {
    const { token } = await connectRaw(url);
    const { publishId } = await publish(token, null);
    await controlCall(url, 'POST', `/__control/posts/${publishId}/user-posts`, { privacyLevel: 'SELF_ONLY' });
    expect((await status(token, publishId)).data).toMatchObject({
      status: 'PUBLISH_COMPLETE',
      publicaly_available_post_id: [],
    });
  });
});

describe('failing in flight', () => {
  it('revoking the grant fails its in-flight publishes with auth_removed; the upload URL stops working', async () => {
    const { openId, token } = await connectRaw(url);
    const inflight = await publish(token, 'SELF_ONLY', url, false);
    const finished = await publish(token, 'SELF_ONLY');
    const revoke = await fetch(`${url}/v2/oauth/revoke/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_key: 'emulator-client-key',
        client_secret: 'emulator-client-secret',
        token,
      }).toString(),
    });
    expect(revoke.status).toBe(200);
    expect((await apiCall(url, token, STATUS, { publish_id: inflight.publishId })).status).toBe(401);
    expect(await post(inflight.publishId)).toMatchObject({ status: 'FAILED', failReason: 'auth_removed' });
    expect((await post(finished.publishId)).status).toBe('PUBLISH_COMPLETE');
    await putWhole(inflight.uploadUrl, 404);
    // Control-API revocation does the same.
    const other = await connectRaw(url);
    const pending = await publish(other.token, 'SELF_ONLY', url, false);
    await controlCall(url, 'POST', `/__control/accounts/${other.openId}/tokens`, { action: 'revoke' });
    expect((await post(pending.publishId)).failReason).toBe('auth_removed');
    expect(openId).not.toBe(other.openId);
  });

  it('fails a non-terminal publish on demand through the control API', async () => {
    const { token } = await connectRaw(url);
    const { publishId } = await publish(token, null);
    const fail = await controlCall(url, 'POST', `/__control/posts/${publishId}/fail`, { failReason: 'internal' });
    expect(fail.status).toBe(200);
    expect((await status(token, publishId)).data).toMatchObject({ status: 'FAILED', fail_reason: 'internal' });
    expect(
      (await controlCall(url, 'POST', `/__control/posts/${publishId}/fail`, { failReason: 'internal' })).status,
    ).toBe(409);
  });
});

describe('persistence', () => {
  it('keeps posts, ids, hashes and init counts across a restart; transfers cut by it fail as internal', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tiktok-emu-posts-'));
    const dataFile = path.join(dir, 'tiktok.json');
    try {
      const first = await startTikTokFixture({ dataFile });
      const { openId, token } = await connectRaw(first.emulator.url);
      const done = await publish(token, 'PUBLIC_TO_EVERYONE', first.emulator.url);
      const cut = await publish(token, 'SELF_ONLY', first.emulator.url, false);
      const inbox = await publish(token, null, first.emulator.url);
      const before = await post(done.publishId, first.emulator.url);
      const bareBefore = (await status(token, done.publishId, first.emulator.url)).text.match(/\[(\d+)\]/)?.[1];
      await first.emulator.stop();

      const second = await startTikTokFixture({ dataFile });
      try {
        const base = second.emulator.url;
        const after = await post(done.publishId, base);
        expect(after).toEqual(before);
        expect(after.postIds).toEqual([bareBefore]);
        expect((await status(token, done.publishId, base)).text).toContain(
          `"publicaly_available_post_id":[${bareBefore}]`,
        );
        expect(await post(cut.publishId, base)).toMatchObject({ status: 'FAILED', failReason: 'internal' });
        expect((await post(inbox.publishId, base)).status).toBe('SEND_TO_USER_INBOX');
        const list = (await (await controlCall(base, 'GET', `/__control/posts?openId=${openId}`)).json()) as {
          posts: unknown[];
          initRequests: Record<string, number>;
        };
        expect(list.posts).toHaveLength(3);
        expect(list.initRequests).toEqual({ [openId]: 3 });
      } finally {
        await second.emulator.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
