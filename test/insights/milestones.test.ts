import { describe, expect, it } from 'vitest';
import { sweepEvents } from '../../src/core/events/relay-sweep.js';
import { milestoneOf, milestoneSnapshot, milestoneText } from '../../src/core/insights/milestones.js';
import { recordPostSnapshot } from '../../src/core/insights/record-snapshot.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { counts, publishPost } from './support.js';

// The moments a post's counts are told to its chat cards: written with the snapshot that reaches them.
const { t } = await useTestServer();
const HOUR = 3_600_000;

async function published(provider: 'tiktok' | 'instagram' = 'tiktok'): Promise<PostDoc> {
  const tenant = await buildTenant(t.deps);
  const platform = await buildPlatform(t.deps, tenant.workspaceId, { provider });
  return publishPost(t.deps, tenant, platform._id);
}

async function snapshot(post: PostDoc, hours: number, views: number) {
  const record = await t.deps.db.postInsights.findOne({ _id: post._id });
  return recordPostSnapshot(t.deps, post._id, counts(views), new Date(record!.publishedAt.getTime() + hours * HOUR));
}

async function eventTypes(post: PostDoc): Promise<string[]> {
  return ((await t.deps.db.postInsights.findOne({ _id: post._id }))?.events ?? []).map((event) => event.type);
}

async function inOutbox(id: string): Promise<boolean> {
  for (let i = 0; i < 200; i += 1) {
    if (await t.deps.db.outbox.findOne({ _id: id })) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe('the 24-hour and 7-day events of a post', () => {
  it('are written by the first snapshot at or past each age, once, and relayed', async () => {
    const post = await published();
    await snapshot(post, 0.05, 10);
    await snapshot(post, 23, 900);
    expect(await eventTypes(post)).toEqual([]);
    await snapshot(post, 24, 1_000);
    expect(await eventTypes(post)).toEqual(['post.metrics_24h']);
    expect(await inOutbox(`${post._id}:post.metrics_24h`)).toBe(true);
    // The same slot again (a retried collection) and the next hours add nothing.
    expect((await snapshot(post, 24.5, 1_050)).stored).toBe(false);
    await snapshot(post, 25, 1_100);
    await snapshot(post, 6 * 24, 5_000);
    expect(await eventTypes(post)).toEqual(['post.metrics_24h']);
    await snapshot(post, 7 * 24, 6_000);
    await snapshot(post, 8 * 24, 6_500);
    expect(await eventTypes(post)).toEqual(['post.metrics_24h', 'post.metrics_7d']);
  });

  it('when one late snapshot passes both ages, tells only the 7 days: day-7 counts are not the first day’s', async () => {
    const post = await published();
    await snapshot(post, 2, 50);
    await snapshot(post, 7 * 24 + 3, 4_000);
    expect(await eventTypes(post)).toEqual(['post.metrics_7d']);
  });

  it('is relayed by the sweep when the process died before relaying it', async () => {
    const post = await published();
    await snapshot(post, 24, 700);
    const id = `${post._id}:post.metrics_24h`;
    expect(await inOutbox(id)).toBe(true);
    await t.deps.db.outbox.deleteOne({ _id: id });
    await sweepEvents(t.deps);
    expect(await inOutbox(id)).toBe(true);
  });

  it("names the post's network in the counts it tells", async () => {
    for (const [provider, name] of [
      ['tiktok', 'TikTok'],
      ['instagram', 'Instagram'],
    ] as const) {
      const post = await published(provider);
      await snapshot(post, 24, 1_000);
      const milestone = milestoneOf('post.metrics_24h')!;
      const found = await milestoneSnapshot(t.deps, post._id, post.workspaceId, milestone);
      expect(milestoneText(milestone, found!)).toMatch(new RegExp(`^After 24 hours on ${name}: 1,000 views`));
    }
  });
});
