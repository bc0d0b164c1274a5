import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART, roundUp } from '../../src/http/web/analytics-chart.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { WebClient, decodeEntities } from '../support/web.js';
import { recordPostSnapshot } from '../../src/core/insights/record-snapshot.js';
import { counts, publishPost } from '../insights/support.js';
import { buildPlatform } from '../support/factories.js';
import { DAY, FORMULA_CAPTION, HOUR, seedAnalytics, type SeededSnapshot } from './analytics-support.js';

// The analytics page over real HTTP with a signed-in session, on numbers recorded by the core functions.
let t: TestDatabase;
let server: TestServer;
let owner: TestUser;
let stranger: TestUser;
let seeded: Awaited<ReturnType<typeof seedAnalytics>>;

beforeAll(async () => {
  t = await openTestDatabase();
  server = await startTestServer(t);
  owner = await buildUser(t.deps, { name: 'Owner' });
  stranger = await buildUser(t.deps, { name: 'Stranger' });
  seeded = await seedAnalytics(t.deps, server, owner, stranger);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await t?.close();
});

async function signedIn(user: TestUser): Promise<WebClient> {
  const browser = new WebClient(server);
  await browser.signIn(user.email, user.password);
  return browser;
}

/** The circles of the first chart on the page: the day each stands for, its value and its height. */
function chartPoints(html: string, index = 0): { at: string; value: number; cy: number }[] {
  const svg = [...html.matchAll(/<svg class="chart"[\s\S]*?<\/svg>/g)][index]![0];
  return [
    ...svg.matchAll(/<circle class="dot" cx="[\d.]+" cy="([\d.]+)" r="[\d.]+" data-at="([^"]+)" data-value="(\d+)"/g),
  ].map((m) => ({ cy: Number(m[1]), at: m[2]!, value: Number(m[3]) }));
}

function axisMax(html: string, index = 0): number {
  return Number([...html.matchAll(/<svg class="chart"[^>]*data-axis-max="(\d+)"/g)][index]![1]);
}

/** What the posts had reached at the end of `day` (UTC, cut at now): each post's newest snapshot by then. */
function viewsBy(snapshots: readonly SeededSnapshot[], day: Date, now: number): number {
  const until = Math.min(day.getTime() + DAY, now + 1);
  const newest = new Map<string, SeededSnapshot>();
  for (const snapshot of snapshots) {
    if (snapshot.at.getTime() >= until) continue;
    const seen = newest.get(snapshot.postId);
    if (!seen || seen.at < snapshot.at) newest.set(snapshot.postId, snapshot);
  }
  return [...newest.values()].reduce((sum, snapshot) => sum + snapshot.views, 0);
}

describe('the analytics page', () => {
  it("lists the period's posts with their latest counts, highest views first, from the header's link", async () => {
    const page = await (await signedIn(owner)).get('/analytics');
    expect(page.status).toBe(200);
    const text = decodeEntities(page.text);
    expect(text).toContain('href="/analytics" aria-current="page">Analytics</a>');
    expect(text).toContain('4 posts, highest views first');
    const order = ['Sleep myths, busted', 'Is coffee after 2pm', 'HYPERLINK', 'Just published, no numbers yet'].map(
      (words) => text.indexOf(words),
    );
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toMatch(
      /Sleep myths, busted #sleep[\s\S]*?<td[^>]*>8,000<\/td>\s*<td[^>]*>700<\/td>\s*<td[^>]*>52<\/td>\s*<td[^>]*>61<\/td>\s*<td[^>]*>10\.2%<\/td>/,
    );
    expect(text).toMatch(/Just published, no numbers yet[\s\S]*?No numbers yet · next count due now/);
    expect(text).toContain('Mia Creates (@mia.creates)');
  });

  it('sorts by likes, shares or engagement rate when asked', async () => {
    const browser = await signedIn(owner);
    const byShares = decodeEntities((await browser.get('/analytics?sort=shares')).text);
    expect(byShares).toContain('highest shares first');
    expect(byShares.indexOf('Sleep myths, busted')).toBeLessThan(byShares.indexOf('Is coffee after 2pm'));
    const byRate = decodeEntities((await browser.get('/analytics?sort=engagement_rate')).text);
    // coffee: (150 + 12 + 44) / 2,100 = 9.8%; the formula post: 10 / 90 = 11.1%; sleep: 10.2%.
    const rateOrder = ['HYPERLINK', 'Sleep myths, busted', 'Is coffee after 2pm'].map((w) => byRate.indexOf(w));
    expect([...rateOrder].sort((a, b) => a - b)).toEqual(rateOrder);
    expect(byRate).toContain(
      `href="/analytics?ws=${owner.workspaceId}&days=30&sort=engagement_rate" aria-current="page">Engagement rate</a>`,
    );
  });

  it('draws views over time from the snapshots: each point is what the posts had reached that day', async () => {
    const html = (await (await signedIn(owner)).get('/analytics?days=7')).text;
    const points = chartPoints(html);
    expect(points).toHaveLength(8); // the seven days before today and today so far
    const now = Date.now();
    const postIds = new Set([seeded.posts.sleep._id, seeded.posts.coffee._id, seeded.posts.formula._id]);
    const ours = seeded.snapshots.filter((snapshot) => postIds.has(snapshot.postId));
    for (const point of points) expect(point.value, point.at).toBe(viewsBy(ours, new Date(point.at), now));
    expect(points.at(-1)!.value).toBe(8_000 + 2_100 + 90);
    expect(points.some((point) => point.value === 3_000)).toBe(true); // the day the first post was 24 hours old
    // The y axis runs from 0 at the bottom to a round maximum at the top.
    const max = axisMax(html);
    expect(max).toBe(roundUp(10_190));
    expect(max).toBe(20_000);
    for (const point of points) {
      const expected = CHART.bottom - (point.value / max) * (CHART.bottom - CHART.top);
      expect(Math.abs(point.cy - expected)).toBeLessThanOrEqual(0.05);
    }
    expect(html).toContain('>20K</text>');
    expect(html).toContain('>10K</text>');
  });

  it("shows the top hooks with their slides, and the account's followers over time", async () => {
    const html = decodeEntities((await (await signedIn(owner)).get('/analytics')).text);
    const hooks = /<ol class="hooks">[\s\S]*?<\/ol>/.exec(html)![0];
    expect(hooks.indexOf('Three sleep myths you still believe')).toBeGreaterThan(0);
    expect(hooks.indexOf('Coffee after 2pm?')).toBeGreaterThan(hooks.indexOf('Three sleep myths'));
    expect(hooks).toContain('5,200 views at 48 hours (median)');
    const slides = [...hooks.matchAll(/<img class="post-thumb" src="(\/m\/[^"]+\/preview)"/g)].map((m) => m[1]!);
    expect(slides).toHaveLength(4); // two slides of each hook's best post
    const preview = await server.request(slides[0]!);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toMatch(/^image\//);
    expect(html).toContain('1,480 followers now');
    // One point a day, that day's last count (the newest may share a day with the one before it).
    const followers = chartPoints(html, 1).map((point) => point.value);
    expect(followers.slice(0, 2)).toEqual([1_000, 1_150]);
    expect(followers.at(-1)).toBe(1_480);
  });

  it('exports the table as CSV: the same rows, quoted, and a caption never runs as a formula', async () => {
    const browser = await signedIn(owner);
    const page = decodeEntities((await browser.get('/analytics?days=7&sort=views')).text);
    expect(page).toContain(`href="/analytics.csv?ws=${owner.workspaceId}&days=7&sort=views" download`);
    const response = await server.request(`/analytics.csv?ws=${owner.workspaceId}&days=7&sort=views`, {
      headers: { cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="postdeck-analytics-7d-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const csv = await response.text();
    const lines = csv.split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe(
      'post_id,published_at,account,caption,hook,views,likes,comments,shares,engagement_rate,views_at_48h,counted_at,status',
    );
    expect(lines).toHaveLength(6);
    const { sleep, formula, waiting } = seeded.posts;
    expect(lines[1]).toMatch(
      new RegExp(
        `^${sleep._id},[^,]+,Mia Creates \\(@mia\\.creates\\),"Sleep myths, busted #sleep",Three sleep myths you still believe,8000,700,52,61,0\\.1016,5200,[^,]+,collecting$`,
      ),
    );
    // Quotes doubled inside a quoted field, and an apostrophe before the leading "=".
    expect(lines[3]).toContain(`,"'=HYPERLINK(""http://evil.example"",""click""), then ""quoted"" words",`);
    expect(lines[3]!.startsWith(`${formula._id},`)).toBe(true);
    expect(lines[3]).toMatch(/,90,9,0,1,0\.1111,,[^,]+,collecting$/);
    expect(FORMULA_CAPTION.startsWith('=')).toBe(true);
    expect(lines[4]!.startsWith(`${waiting._id},`)).toBe(true);
    expect(lines[4]).toMatch(/,"Just published, no numbers yet",,,,,,,,,collecting$/);
  });

  it("never shows or exports another workspace's posts, hooks or accounts", async () => {
    const browser = await signedIn(owner);
    const html = decodeEntities((await browser.get('/analytics?days=90')).text);
    for (const theirs of ['Their million-view post', 'Their secret hook', 'Other Studio', '1,000,000', '777,777']) {
      expect(html).not.toContain(theirs);
    }
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const csv = await (await server.request('/analytics.csv?days=90', { headers: { cookie } })).text();
    expect(csv).not.toContain(seeded.posts.theirs._id);
    expect(csv).not.toContain('1000000');
    // The stranger sees their own numbers only, and not the owner's workspace by id.
    const theirs = await signedIn(stranger);
    const own = decodeEntities((await theirs.get('/analytics')).text);
    expect(own).toContain('Their million-view post');
    expect(own).not.toContain('Sleep myths');
    expect((await theirs.get(`/analytics?ws=${owner.workspaceId}`)).status).toBe(404);
    expect((await theirs.get(`/analytics.csv?ws=${owner.workspaceId}`)).status).toBe(404);
  });

  it('says what to do when there is nothing yet, and sends a signed-out visitor to sign in', async () => {
    const newcomer = await buildUser(t.deps, { name: 'Newcomer' });
    const text = decodeEntities((await (await signedIn(newcomer)).get('/analytics')).text);
    expect(text).toContain('No posts were published in the last 30 days.');
    expect(text).toContain(
      "A public post's first numbers arrive within 5 minutes of its publishing, then hourly for its first two days; TikTok counts only public posts.",
    );
    expect(text).toContain('No hooks ranked yet.');
    expect(text).toContain('No TikTok account is connected.');
    expect(text).not.toContain('<svg');
    const out = await new WebClient(server).get('/analytics');
    expect(out.status).toBe(303);
    expect(out.location).toBe('/signin?next=%2Fanalytics');
  });

  it('says at once that a post TikTok will not count is unavailable, and never shows a next count in the past', async () => {
    const trial = await buildUser(t.deps, { name: 'Trial' });
    const platform = await buildPlatform(t.deps, trial.workspaceId, { displayName: 'Trial', displayHandle: 'trial' });
    await publishPost(t.deps, trial, platform._id, {
      content: 'Only me, never counted',
      releaseId: null,
      privacyLevel: 'SELF_ONLY',
      publishedAgoMs: 0,
    });
    // Published two hours ago and never collected: its first count is overdue.
    await publishPost(t.deps, trial, platform._id, { content: 'Public, count overdue', publishedAgoMs: 2 * HOUR });
    const counted = await publishPost(t.deps, trial, platform._id, { content: 'Public, counted', publishedAgoMs: 0 });
    await recordPostSnapshot(t.deps, counted._id, counts(40, 4, 0, 0), new Date());
    const asked = Date.now();
    const text = decodeEntities((await (await signedIn(trial)).get('/analytics')).text);
    expect(text).toMatch(
      /Only me, never counted[\s\S]*?Unavailable<\/span>\s*<span class="muted">TikTok counts only public posts, and this one was published as Only me \(SELF_ONLY\)/,
    );
    expect(text).toMatch(/Public, count overdue[\s\S]*?No numbers yet · next count due now/);
    const next =
      /Public, counted[\s\S]*?Counted\s*<time[^>]*>[^<]*<\/time>\s*· next count\s*<time datetime="([^"]+)"/.exec(text);
    expect(Date.parse(next![1]!)).toBeGreaterThan(asked);
    // Every time the page names for a next count is still to come.
    for (const [, at] of text.matchAll(/next count\s*<time datetime="([^"]+)"/g)) {
      expect(Date.parse(at!)).toBeGreaterThanOrEqual(asked);
    }
  });
});
