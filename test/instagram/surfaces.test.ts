import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditAction } from '../../src/core/audit/documents.js';
import { startReceiver, waitUntil } from '../../bench/support/webhook-receiver.js';
import { makeJpeg } from '../support/media.js';
import { call } from '../support/posts.js';
import { settled, SLOW, storeMedia } from '../publishing/support.js';
import { connectInstagram, startInstagramWorld, type InstagramWorld } from '../publishing/instagram-world.js';

// An Instagram post's trail names its network wherever a post is reported: the audit entries of the post and of
// the account's connection, and the webhook payloads (beyond the spec, which describes no events).
const receiver = await startReceiver();
let w: InstagramWorld;
beforeAll(async () => {
  w = await startInstagramWorld({}, { webhooks: { allowPrivate: true, retryBaseMs: 100 } });
}, 60_000);
afterAll(async () => {
  await w.close();
  await receiver.close();
});

function trail(action: AuditAction, subjectId: string) {
  return w.t.deps.db.audit.find({ workspaceId: w.tenant.workspaceId, action, 'subject.id': subjectId }).toArray();
}

describe('an Instagram post reported on every surface', SLOW, () => {
  it('names instagram in the audit entries and webhook payloads of the connect, draft, approval, publish and delete', async () => {
    const registered = await call(w.server, w.tenant.apiKey, 'POST', '/webhooks', {
      url: `${receiver.url}/instagram`,
      events: ['post.created', 'post.published'],
    });
    expect(registered.status, registered.text).toBe(201);
    receiver.expect('/instagram', registered.body.secret as string);

    const { platform } = await connectInstagram(w);
    expect(await trail('platform.connected', platform._id)).toMatchObject([{ details: { provider: 'instagram' } }]);

    const image = await storeMedia(w, await makeJpeg(1080, 1350));
    const created = await call(w.server, w.tenant.apiKey, 'POST', '/posts', {
      platformIds: [platform._id],
      content: 'Cold brew, three ways #coldbrew',
      mode: 'draft',
      mediaIds: [image._id],
      settings: {},
    });
    expect(created.status, created.text).toBe(201);
    const postId = (created.body.results as { post: { root: { id: string } } }[])[0]!.post.root.id;
    expect(await trail('post.created', postId)).toMatchObject([{ details: { provider: 'instagram' } }]);

    const approved = await call(w.server, w.tenant.apiKey, 'POST', `/posts/${postId}/publish`, {});
    expect(approved.status, approved.text).toBe(200);
    expect(await trail('post.approved', postId)).toMatchObject([{ details: { provider: 'instagram', mode: 'now' } }]);
    expect((await settled(w, postId)).state).toBe('PUBLISHED');
    await waitUntil(
      () => trail('post.published', postId).then((found) => found.length === 1),
      'post.published audited',
    );
    expect(await trail('post.published', postId)).toMatchObject([{ details: { provider: 'instagram' } }]);

    await waitUntil(() => receiver.at('/instagram').length === 2, 'both events delivered');
    const payloads = receiver.at('/instagram').map((request) => request.verified);
    expect(payloads).toMatchObject([
      { type: 'post.created', data: { postId, provider: 'instagram' } },
      { type: 'post.published', data: { postId, provider: 'instagram' } },
    ]);

    expect((await call(w.server, w.tenant.apiKey, 'DELETE', `/posts/${postId}`)).status).toBe(204);
    expect(await trail('post.deleted', postId)).toMatchObject([{ details: { provider: 'instagram', posts: 1 } }]);
  });
});
