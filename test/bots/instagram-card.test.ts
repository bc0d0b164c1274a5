import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCard } from '../../src/core/chat/card-model.js';
import { cardMessage } from '../../src/bots/discord/card.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import { buildPost } from '../support/posts.js';

// The Discord card of each network's post, from the card core builds to the embed the adapter sends.
let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
}, 60_000);
afterAll(async () => {
  await t.close();
});

type Field = { name: string; value: string };

async function embedOf(provider: 'tiktok' | 'instagram', post: Parameters<typeof buildPost>[2]) {
  const { workspaceId } = await buildTenant(t.deps);
  const platform = await buildPlatform(t.deps, workspaceId, {
    provider,
    displayName: 'Cold Brew Club',
    displayHandle: 'coldbrew.club',
  });
  const doc = await buildPost(t.deps, workspaceId, { platformId: platform._id, ...post });
  const card = await buildCard(t.deps, doc._id, {
    workspaceId,
    author: 'API key "agent"',
    editedContent: null,
    actions: [],
  });
  const embed = cardMessage(card).embeds![0]! as { title: string; fields: Field[] };
  const field = (name: string) => embed.fields.find((each) => each.name === name)?.value;
  return { embed, field, names: embed.fields.map((each) => each.name) };
}

describe('a Discord card names its network', () => {
  it('an Instagram post: the network and handle, no privacy or music, and the link under "On Instagram"', async () => {
    const releaseUrl = 'https://www.instagram.com/p/C0ldBrew/';
    const { embed, field, names } = await embedOf('instagram', { state: 'PUBLISHED', releaseUrl, settings: {} });
    expect(embed.title).toBe('Published on Instagram');
    expect(field('Account')).toBe('Instagram · Cold Brew Club (@coldbrew.club)');
    expect(names).not.toContain('Privacy');
    expect(names).not.toContain('Music');
    expect(field('On Instagram')).toBe(`[View on Instagram](${releaseUrl})`);
    expect(JSON.stringify(embed)).not.toContain('TikTok');
  });

  it('an Instagram post published without its link says Instagram has not released it', async () => {
    const { field } = await embedOf('instagram', { state: 'PUBLISHED', releaseUrl: null, settings: {} });
    expect(field('On Instagram')).toBe('Instagram has not released the link yet.');
  });

  it('a TikTok draft keeps its privacy and music lines, its account led by TikTok', async () => {
    const settings = { content_posting_method: 'DIRECT_POST', privacy_level: 'PUBLIC_TO_EVERYONE' };
    const { embed, field } = await embedOf('tiktok', { state: 'DRAFT', settings });
    expect(embed.title).toBe('Draft waiting for approval');
    expect(field('Account')).toBe('TikTok · Cold Brew Club (@coldbrew.club)');
    expect(field('Privacy')).toBe('Everyone');
    expect(field('Music')).toContain("TikTok's API cannot attach trending music.");
  });
});
