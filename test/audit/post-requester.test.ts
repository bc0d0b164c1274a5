import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditAction, AuditEntryDoc } from '../../src/core/audit/documents.js';
import { mintApiKey } from '../../src/core/auth/api-keys.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { makeJpeg, upload } from '../support/media.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { call } from '../support/posts.js';
import {
  connectCreator,
  PUBLIC_SETTINGS,
  SLOW,
  startWorld,
  waitFor,
  type PublishingWorld,
} from '../publishing/support.js';

// A post the engine publishes later is in the trail under the key that asked for it: the key that
// created it to publish now, or the key that approved the draft, with the surface it asked through.
let w: PublishingWorld;
let platform: PlatformDoc;
let keyId: string;
const clients: Client[] = [];

beforeAll(async () => {
  w = await startWorld();
  ({ platform } = await connectCreator(w));
  const key = await w.t.deps.db.apiKeys.findOne({ workspaceId: w.tenant.workspaceId, name: 'bootstrap' });
  keyId = key!._id;
}, 240_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await w.close();
});

async function photoPost(mode: 'now' | 'draft'): Promise<string> {
  const uploaded = await upload(w.server, w.tenant.apiKey, {
    bytes: await makeJpeg(800, 600),
    name: 'one.jpg',
    type: 'image/jpeg',
  });
  expect(uploaded.status).toBe(201);
  const mediaId = ((await uploaded.json()) as { id: string }).id;
  const created = await call(w.server, w.tenant.apiKey, 'POST', '/posts', {
    platformIds: [platform._id],
    content: 'Asked for by a key #postdeck',
    mode,
    mediaIds: [mediaId],
    settings: PUBLIC_SETTINGS,
  });
  expect(created.status).toBe(201);
  return (created.body.results as { post: { root: { id: string } } }[])[0]!.post.root.id;
}

function entryOf(action: AuditAction, postId: string): Promise<AuditEntryDoc> {
  return waitFor(`the ${action} entry of ${postId}`, async () => {
    const entries = await w.t.deps.db.audit.find({ action, 'subject.id': postId }).toArray();
    expect(entries.length).toBeLessThanOrEqual(1);
    return entries[0];
  });
}

describe('posts asked for by an API key', () => {
  it('created with mode now through REST: post.created and post.published both name the key', SLOW, async () => {
    const postId = await photoPost('now');
    const key = { type: 'api_key', keyId, userId: w.tenant.userId };
    expect(await entryOf('post.created', postId)).toMatchObject({
      actor: key,
      surface: 'rest',
      subject: { type: 'post', id: postId },
      details: { mode: 'now', platformId: platform._id },
    });
    expect(await entryOf('post.published', postId)).toMatchObject({ actor: key, surface: 'rest' });
    // What the key did, as an owner reads it back by the key's id.
    const listed = await call(w.server, w.tenant.apiKey, 'GET', `/audit?actor=${keyId}&limit=100`);
    const mine = (listed.body as { entries: { action: string; subject: { id: string } }[] }).entries
      .filter((entry) => entry.subject.id === postId)
      .map((entry) => entry.action);
    expect(mine).toEqual(['post.published', 'post.created']);
  });

  it(
    'a draft created by one key and approved through MCP by another: published under the approving key',
    SLOW,
    async () => {
      const postId = await photoPost('draft');
      const approver = await mintApiKey(w.t.deps, { ...w.tenant, name: 'approver agent' });
      const client = await connectMcpOverHttp(w.server.url, approver.apiKey);
      clients.push(client);
      const approved = await client.callTool({ name: 'publish_post', arguments: { id: postId, mode: 'now' } });
      expect(approved.isError).toBeFalsy();
      expect(await entryOf('post.created', postId)).toMatchObject({ actor: { keyId }, details: { mode: 'draft' } });
      expect(await entryOf('post.published', postId)).toMatchObject({
        actor: { type: 'api_key', keyId: approver.view.id },
        surface: 'mcp',
      });
    },
  );
});
