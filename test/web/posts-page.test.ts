import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { connectAccount } from '../platforms/support.js';
import type { TestDatabase } from '../support/db.js';
import type { TestServer } from '../support/http.js';
import { startTikTokStack, type TikTokStack } from '../support/tiktok-stack.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { buildImages, buildPost, buildVideo, DIRECT, publishJobs } from '../support/posts.js';
import type { TikTokFixture } from '../support/tiktok.js';
import { WebClient } from '../support/web.js';

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let stack: TikTokStack;
let alice: TestUser;
let platform: PlatformDoc;
let browser: WebClient;

beforeAll(async () => {
  stack = await startTikTokStack();
  ({ f, t, server } = stack);
  alice = await buildUser(t.deps, { name: 'Alice' });
  const account = await f.createAccount({ displayName: 'Calendar Creator', username: 'calendar.creator' });
  platform = await connectAccount(t.deps, alice.scope, account.openId);
  browser = new WebClient(server);
  await browser.signIn(alice.email, alice.password);
});
afterAll(() => stack.stop());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** datetime-local as the browser sends it: no zone, minutes precision. */
const local = (at: Date) => at.toISOString().slice(0, 16);

/** A draft of Alice's that TikTok would accept: her connected account, one READY video, valid settings. */
async function validDraft(overrides: Partial<PostDoc> = {}): Promise<PostDoc> {
  const video = await buildVideo(t.deps, alice.workspaceId);
  return buildPost(t.deps, alice.workspaceId, {
    accountId: alice.accountId,
    platformId: platform._id,
    mediaIds: [video._id],
    settings: { ...DIRECT },
    ...overrides,
  });
}

/** The markup of one post's card on a page (its <article>). */
function card(html: string, postId: string): string {
  const match = new RegExp(`<article class="post [a-z]+" id="post-${postId}">[\\s\\S]*?</article>`).exec(html);
  return match?.[0] ?? '';
}

/** The posts of each day column of a week page, by day heading, as ids. */
function columns(html: string): Record<string, string[]> {
  const days: Record<string, string[]> = {};
  for (const day of html.split('<li class="day').slice(1)) {
    const date = /view=day&#38;date=(\d{4}-\d{2}-\d{2})/.exec(day)?.[1] ?? '?';
    days[date] = [...day.matchAll(/id="post-([0-9a-f-]{36})"/g)].map((m) => m[1]!);
  }
  return days;
}

/** Posts a form of the calendar page (loading it first for the CSRF token). */
async function act(path: string, fields: Record<string, string>, view = 'day', date = '2031-03-12') {
  await browser.get(`/posts?ws=${alice.workspaceId}&view=${view}&date=${date}`);
  return browser.post(path, { workspaceId: alice.workspaceId, view, date, ...fields });
}

describe('the posts calendar', () => {
  it('sends a signed-out visitor to sign in', async () => {
    const page = await new WebClient(server).get('/posts?view=day&date=2031-03-12');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/signin?next=%2Fposts%3Fview%3Dday%26date%3D2031-03-12');
  });

  it('shows this week by default, Monday to Sunday in UTC, with a draft created today and the Posts section', async () => {
    const draft = await buildPost(t.deps, alice.workspaceId, { platformId: platform._id, content: 'Made today' });
    const page = await browser.get('/posts');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/posts" aria-current="page">Posts</a>');
    expect(page.text).toMatch(/All times are UTC; it is now \d{2}:\d{2} UTC\./);
    const today = new Date().toISOString().slice(0, 10);
    const week = columns(page.text);
    expect(Object.keys(week)).toHaveLength(7);
    expect(new Date(`${Object.keys(week)[0]!}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(week[today]).toContain(draft._id);
    expect(page.text).toContain(`<li class="day today">`);
    expect(card(page.text, draft._id)).toContain('No time set');
  });

  it('lists exactly the posts of the week, on their days, in time order, and only this workspace’s', async () => {
    const at = (iso: string) => new Date(iso);
    const monday = await buildPost(t.deps, alice.workspaceId, {
      state: 'QUEUE',
      platformId: platform._id,
      scheduledFor: at('2031-03-10T09:00:00Z'),
      content: 'Monday morning <b>bold</b>',
    });
    const mondayEarly = await buildPost(t.deps, alice.workspaceId, {
      platformId: platform._id,
      scheduledFor: at('2031-03-10T00:00:00Z'),
    });
    const sunday = await buildPost(t.deps, alice.workspaceId, {
      state: 'PUBLISHED',
      platformId: platform._id,
      scheduledFor: at('2031-03-16T23:59:00Z'),
      releaseId: '7300000000000000001',
      releaseUrl: 'https://www.tiktok.com/@calendar.creator/video/7300000000000000001',
    });
    const failed = await buildPost(t.deps, alice.workspaceId, {
      state: 'ERROR',
      platformId: platform._id,
      scheduledFor: at('2031-03-12T12:30:00Z'),
      errorText: 'TikTok refused the video: it is too short.',
    });
    const unscheduled = await buildPost(t.deps, alice.workspaceId, {
      platformId: platform._id,
      createdAt: at('2031-03-13T08:00:00Z'),
    });
    const nextWeek = await buildPost(t.deps, alice.workspaceId, { scheduledFor: at('2031-03-17T00:00:00Z') });
    const lastWeek = await buildPost(t.deps, alice.workspaceId, { scheduledFor: at('2031-03-09T23:59:59Z') });
    const stranger = await buildUser(t.deps, { name: 'Stranger' });
    const theirs = await buildPost(t.deps, stranger.workspaceId, { scheduledFor: at('2031-03-11T10:00:00Z') });

    // Any day of the week shows the same week.
    const page = await browser.get(`/posts?ws=${alice.workspaceId}&view=week&date=2031-03-14`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Week of 10 Mar – Sunday 16 Mar 2031 (UTC)');
    expect(columns(page.text)).toEqual({
      '2031-03-10': [mondayEarly._id, monday._id],
      '2031-03-11': [],
      '2031-03-12': [failed._id],
      '2031-03-13': [unscheduled._id],
      '2031-03-14': [],
      '2031-03-15': [],
      '2031-03-16': [sunday._id],
    });
    for (const absent of [nextWeek, lastWeek, theirs]) expect(page.text).not.toContain(absent._id);

    const queued = card(page.text, monday._id);
    expect(queued).toContain('<time class="time" datetime="2031-03-10T09:00:00.000Z">09:00</time>');
    expect(queued).toContain('<span class="badge queue">QUEUE</span>');
    // The handle whole (an ellipsis, not a mid-word break, when the column is narrow), the full name on hover.
    expect(queued).toContain(
      '<p class="post-account" title="Calendar Creator (@calendar.creator)">@calendar.creator</p>',
    );
    expect(queued).toContain('Monday morning &#60;b&#62;bold&#60;/b&#62;');
    expect(queued).toContain('No media');
    expect(queued).toContain(
      `href="/posts?ws=${alice.workspaceId}&#38;view=day&#38;date=2031-03-10#post-${monday._id}"`,
    );
    expect(card(page.text, sunday._id)).toContain(
      '<a href="https://www.tiktok.com/@calendar.creator/video/7300000000000000001" rel="noreferrer noopener">View on TikTok</a>',
    );
    expect(card(page.text, failed._id)).toContain('TikTok refused the video: it is too short.');
    expect(card(page.text, unscheduled._id)).toContain('No time set');
    // The week grid has no forms: actions are in the day view.
    expect(queued).not.toContain('<form');
    expect(page.text).toContain(`href="/posts?ws=${alice.workspaceId}&#38;view=week&#38;date=2031-03-07" rel="prev"`);
    expect(page.text).toContain(`href="/posts?ws=${alice.workspaceId}&#38;view=week&#38;date=2031-03-21" rel="next"`);

    const day = await browser.get(`/posts?ws=${alice.workspaceId}&view=day&date=2031-03-10`);
    expect(day.text).toContain('Monday 10 Mar 2031 (UTC)');
    const ids = [...day.text.matchAll(/<article class="post [a-z]+" id="post-([0-9a-f-]{36})"/g)].map((m) => m[1]);
    expect(ids).toEqual([mondayEarly._id, monday._id]);
    expect(card(day.text, monday._id)).toContain('09:00 UTC');
    expect(card(day.text, monday._id)).toContain('<p class="post-account">Calendar Creator (@calendar.creator)</p>');
    expect(day.text).toContain(`href="/posts?ws=${alice.workspaceId}&#38;view=day&#38;date=2031-03-09" rel="prev"`);

    const empty = await browser.get(`/posts?ws=${alice.workspaceId}&view=day&date=2031-03-11`);
    expect(empty.text).toContain('No posts on this day.');
  });

  it('describes the media attached: the kind and the count', async () => {
    const images = await buildImages(t.deps, alice.workspaceId, 3);
    const video = await buildVideo(t.deps, alice.workspaceId);
    const photo = await buildPost(t.deps, alice.workspaceId, {
      scheduledFor: new Date('2031-04-01T10:00:00Z'),
      mediaIds: images.map((m) => m._id),
    });
    const clip = await buildPost(t.deps, alice.workspaceId, {
      scheduledFor: new Date('2031-04-01T11:00:00Z'),
      mediaIds: [video._id],
    });
    const page = await browser.get(`/posts?ws=${alice.workspaceId}&view=day&date=2031-04-01`);
    expect(card(page.text, photo._id)).toContain('3 images');
    expect(card(page.text, clip._id)).toContain('1 video');
    expect(card(page.text, photo._id)).toContain('An account no longer connected here');
    // The first slide's preview, from this server's own path, in the day and the week view.
    const thumbnail = `<img class="post-thumb" src="/m/${images[0]!._id}/${images[0]!.publicToken}/preview"`;
    expect(card(page.text, photo._id)).toContain(thumbnail);
    const week = await browser.get(`/posts?ws=${alice.workspaceId}&view=week&date=2031-04-01`);
    expect(card(week.text, photo._id)).toContain(thumbnail);
    expect(card(week.text, clip._id)).toContain(`/m/${video._id}/${video.publicToken}/preview`);
  });

  it('ignores a view or date that is not real and shows this week', async () => {
    for (const query of ['view=month&date=2031-02-30', 'date=yesterday', 'date=2031-13-01']) {
      const page = await browser.get(`/posts?ws=${alice.workspaceId}&${query}`);
      expect(page.status).toBe(200);
      expect(Object.keys(columns(page.text))).toContain(new Date().toISOString().slice(0, 10));
      expect(page.text).not.toContain('2031-02-30');
    }
  });
});

describe('acting on a post', () => {
  it('refuses every action without the CSRF token and changes nothing', async () => {
    const draft = await validDraft({ scheduledFor: new Date('2031-03-12T10:00:00Z') });
    const future = local(new Date(Date.now() + DAY));
    for (const [action, fields] of [
      ['publish', {}],
      ['schedule', { scheduledFor: future }],
      ['reschedule', { scheduledFor: future }],
      ['delete', { confirm: 'yes' }],
    ] as const) {
      await browser.get('/posts');
      const refused = await browser.post(
        `/posts/${draft._id}/${action}`,
        { workspaceId: alice.workspaceId, ...fields },
        { csrf: false },
      );
      expect({ action, status: refused.status }).toEqual({ action, status: 403 });
    }
    expect(await t.deps.db.posts.findOne({ _id: draft._id })).toMatchObject({
      state: 'DRAFT',
      scheduledFor: draft.scheduledFor,
    });
  });

  it('answers 404 for another workspace’s post, by its id or by naming that workspace', async () => {
    const stranger = await buildUser(t.deps, { name: 'Stranger' });
    const theirs = await buildPost(t.deps, stranger.workspaceId, { scheduledFor: new Date('2031-03-12T10:00:00Z') });
    const future = local(new Date(Date.now() + DAY));
    for (const [action, fields] of [
      ['publish', {}],
      ['schedule', { scheduledFor: future }],
      ['reschedule', { scheduledFor: future }],
      ['delete', { confirm: 'yes' }],
    ] as const) {
      const viaOwn = await act(`/posts/${theirs._id}/${action}`, fields);
      expect({ action, status: viaOwn.status }).toEqual({ action, status: 404 });
      expect(viaOwn.text).toContain('Post not found');
      await browser.get('/posts');
      const viaTheirs = await browser.post(`/posts/${theirs._id}/${action}`, {
        workspaceId: stranger.workspaceId,
        ...fields,
      });
      expect({ action, status: viaTheirs.status }).toEqual({ action, status: 404 });
    }
    const unknown = await act(`/posts/${crypto.randomUUID()}/publish`, {});
    expect(unknown.status).toBe(404);
    expect(await t.deps.db.posts.findOne({ _id: theirs._id })).toMatchObject({ state: 'DRAFT' });
  });

  it('publishes a draft now: back to the same view with a fixed notice, the post QUEUE with a publish job', async () => {
    const draft = await validDraft({ scheduledFor: new Date('2031-03-12T10:00:00Z') });
    const done = await act(`/posts/${draft._id}/publish`, {}, 'week', '2031-03-12');
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/posts?ws=${alice.workspaceId}&view=week&date=2031-03-12&notice=published`);
    const stored = await t.deps.db.posts.findOne({ _id: draft._id });
    expect(stored?.state).toBe('QUEUE');
    expect(stored!.scheduledFor!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await publishJobs(t, draft._id)).toHaveLength(1);
    const page = await browser.get(done.location!);
    expect(page.text).toContain('The draft is queued and will be published in a moment.');
    expect(page.text).toMatch(/role="status"/);
  });

  it('shows not_a_draft’s message on the calendar when the post is no longer a draft', async () => {
    const queued = await validDraft({ state: 'QUEUE', scheduledFor: new Date('2031-03-12T10:00:00Z') });
    const refused = await act(`/posts/${queued._id}/publish`, {});
    expect(refused.status).toBe(409);
    expect(refused.text).toContain(
      '<div class="notice error" role="alert" aria-live="assertive">Only a draft can be published; this post is QUEUE.',
    );
    // The page is the calendar the form came from, with its posts.
    expect(refused.text).toContain('Wednesday 12 Mar 2031 (UTC)');
    expect(card(refused.text, queued._id)).toContain('QUEUE');
    expect(refused.text).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it('schedules a draft: QUEUE at the time typed, read as UTC', async () => {
    const draft = await validDraft();
    const at = new Date(Math.ceil((Date.now() + DAY) / 60_000) * 60_000);
    const done = await act(`/posts/${draft._id}/schedule`, { scheduledFor: local(at) });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/posts?ws=${alice.workspaceId}&view=day&date=2031-03-12&notice=scheduled`);
    expect(await t.deps.db.posts.findOne({ _id: draft._id })).toMatchObject({ state: 'QUEUE', scheduledFor: at });
    expect((await browser.get(done.location!)).text).toContain('The draft is scheduled');
  });

  it('shows the problems TikTok’s rules find in a draft, and leaves it a draft', async () => {
    const draft = await validDraft({ settings: { content_posting_method: 'DIRECT_POST' } });
    const refused = await act(`/posts/${draft._id}/publish`, {});
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(
      /<div class="notice error" role="alert" aria-live="assertive">The draft does not meet TikTok&#39;s rules: [^<]*privacy/,
    );
    expect((await t.deps.db.posts.findOne({ _id: draft._id }))?.state).toBe('DRAFT');
  });

  it('lists the problems beyond the few core’s message quotes', async () => {
    const draft = await validDraft({
      settings: { privacy_level: 'NOBODY', disable_comment: 'no', disable_duet: 'no', disable_stitch: 'no' },
    });
    const refused = await act(`/posts/${draft._id}/publish`, {});
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/\(and \d+ more\)<ul><li>[^<]+<\/li>/);
  });

  it('moves a draft without publishing it, and reschedules a queued post', async () => {
    const draft = await validDraft();
    const at = new Date(Math.ceil((Date.now() + 2 * DAY) / 60_000) * 60_000);
    const moved = await act(`/posts/${draft._id}/reschedule`, { scheduledFor: local(at) });
    expect(moved.location).toBe(`/posts?ws=${alice.workspaceId}&view=day&date=2031-03-12&notice=rescheduled`);
    expect(await t.deps.db.posts.findOne({ _id: draft._id })).toMatchObject({ state: 'DRAFT', scheduledFor: at });

    const queued = await validDraft({ state: 'QUEUE', scheduledFor: new Date(Date.now() + DAY) });
    const again = await act(`/posts/${queued._id}/reschedule`, { scheduledFor: local(at) });
    expect(again.status).toBe(303);
    expect(await t.deps.db.posts.findOne({ _id: queued._id })).toMatchObject({
      state: 'QUEUE',
      scheduledFor: at,
      dueAt: at,
    });
  });

  it('refuses a time in the past or no time at all, on the page, and keeps the post as it was', async () => {
    const draft = await validDraft({ scheduledFor: new Date('2031-03-12T10:00:00Z') });
    for (const action of ['schedule', 'reschedule']) {
      const past = await act(`/posts/${draft._id}/${action}`, { scheduledFor: local(new Date(Date.now() - HOUR)) });
      expect({ action, status: past.status }).toEqual({ action, status: 400 });
      expect(past.text).toMatch(/Choose a time in the future: it is now \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\./);
      expect(past.text).toContain('role="alert"');
      for (const bad of ['', 'tomorrow', '2031-02-30T10:00']) {
        const refused = await act(`/posts/${draft._id}/${action}`, { scheduledFor: bad });
        expect({ action, bad, status: refused.status }).toEqual({ action, bad, status: 400 });
        expect(refused.text).toMatch(/Enter the date and time \(UTC\) to publish at\./);
      }
    }
    expect(await t.deps.db.posts.findOne({ _id: draft._id })).toMatchObject({
      state: 'DRAFT',
      scheduledFor: draft.scheduledFor,
    });
  });

  it('deletes a draft only once “yes, delete” is ticked', async () => {
    const draft = await validDraft({ scheduledFor: new Date('2031-03-12T10:00:00Z') });
    const day = await browser.get(`/posts?ws=${alice.workspaceId}&view=day&date=2031-03-12`);
    expect(card(day.text, draft._id)).toMatch(
      /<input type="checkbox" name="confirm" value="yes" required\/>Yes, delete this draft/,
    );
    const unconfirmed = await act(`/posts/${draft._id}/delete`, {});
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain('Tick “Yes, delete” next to the Delete button to delete the post.');
    expect(await t.deps.db.posts.findOne({ _id: draft._id })).not.toBeNull();

    const deleted = await act(`/posts/${draft._id}/delete`, { confirm: 'yes' });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe(`/posts?ws=${alice.workspaceId}&view=day&date=2031-03-12&notice=deleted`);
    expect(await t.deps.db.posts.findOne({ _id: draft._id })).toBeNull();
    const page = await browser.get(deleted.location!);
    expect(page.text).toContain('The post was deleted.');
    expect(page.text).not.toContain(draft._id);
  });

  it('refuses to delete a post being published, with core’s message', async () => {
    const publishing = await buildPost(t.deps, alice.workspaceId, {
      platformId: platform._id,
      state: 'PUBLISHING',
      scheduledFor: new Date('2031-03-12T11:00:00Z'),
    });
    const day = await browser.get(`/posts?ws=${alice.workspaceId}&view=day&date=2031-03-12`);
    expect(card(day.text, publishing._id)).toContain('Being sent to TikTok right now.');
    expect(card(day.text, publishing._id)).not.toContain('<form');
    const refused = await act(`/posts/${publishing._id}/delete`, { confirm: 'yes' });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('The post is being published right now');
    expect(await t.deps.db.posts.findOne({ _id: publishing._id })).not.toBeNull();
  });

  it('never echoes a notice from the URL', async () => {
    const page = await browser.get(`/posts?ws=${alice.workspaceId}&notice=%3Cscript%3Ealert(1)%3C/script%3E`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('alert(1)');
    expect(page.text).not.toContain('role="status"');
  });
});
