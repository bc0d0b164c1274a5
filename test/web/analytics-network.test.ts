import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordPostSnapshot } from '../../src/core/insights/record-snapshot.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildPlatform } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { WebClient, decodeEntities } from '../support/web.js';
import { counts, publishPost } from '../insights/support.js';

// The analytics page filtered by network (`?network=`): the table, the CSV and the accounts of that network only.
let t: TestDatabase;
let server: TestServer;
let owner: TestUser;

beforeAll(async () => {
  t = await openTestDatabase();
  server = await startTestServer(t);
  owner = await buildUser(t.deps, { name: 'Owner' });
  const tiktok = await buildPlatform(t.deps, owner.workspaceId, { displayName: 'Tok Account', displayHandle: 'tok' });
  const instagram = await buildPlatform(t.deps, owner.workspaceId, {
    provider: 'instagram',
    displayName: 'Gram Account',
    displayHandle: 'gram',
  });
  const counted = async (post: PostDoc, views: number) => {
    const record = await t.deps.db.postInsights.findOne({ _id: post._id });
    await recordPostSnapshot(t.deps, post._id, counts(views, 1), new Date(record!.publishedAt.getTime() + 3_600_000));
  };
  await counted(await publishPost(t.deps, owner, tiktok._id, { content: 'Danced on TikTok' }), 900);
  await counted(await publishPost(t.deps, owner, instagram._id, { content: 'Framed for Instagram' }), 40);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await t?.close();
});

describe('the analytics page by network', () => {
  it('shows every network by default and one network when chosen, in the page and its CSV', async () => {
    const browser = new WebClient(server);
    await browser.signIn(owner.email, owner.password);
    const all = decodeEntities((await browser.get('/analytics')).text);
    expect(all).toContain('Danced on TikTok');
    expect(all).toContain('Framed for Instagram');
    expect(all).toContain('with their latest counts from TikTok and Instagram.');
    expect(all).toMatch(/aria-current="page">All networks<\/a>/);

    const gram = decodeEntities((await browser.get('/analytics?network=instagram')).text);
    expect(gram).toContain('Framed for Instagram');
    expect(gram).not.toContain('Danced on TikTok');
    expect(gram).not.toContain('Tok Account');
    expect(gram).toContain(
      `href="/analytics?ws=${owner.workspaceId}&days=30&sort=views&network=instagram" aria-current="page">Instagram</a>`,
    );
    expect(gram).toContain('with their latest counts from Instagram.');
    const csv = await browser.get(`/analytics.csv?ws=${owner.workspaceId}&days=30&sort=views&network=tiktok`);
    expect(csv.status).toBe(200);
    expect(csv.text).toContain('Danced on TikTok');
    expect(csv.text).not.toContain('Framed for Instagram');
  });

  it('falls back to every network for a value it does not know', async () => {
    const browser = new WebClient(server);
    await browser.signIn(owner.email, owner.password);
    const page = decodeEntities((await browser.get('/analytics?network=myspace')).text);
    expect(page).toContain('Danced on TikTok');
    expect(page).toContain('Framed for Instagram');
  });
});
