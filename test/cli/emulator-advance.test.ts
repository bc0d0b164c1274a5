import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPostdeck } from '../support/spawn.js';
import { connectRaw, controlCall, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { ANALYTICS_GRANT, publishPost, startMediaHost, type MediaHost } from '../support/tiktok-published.js';

// `postdeck emulator advance` as a trial runs it (the built CLI), and the emulator's own clock page, against a
// running TikTok emulator with a public post and a private one: the post clock moves and the counts grow.
let host: MediaHost;
let f: TikTokFixture;
let dataDir: string;
let env: Record<string, string>;
let publicPost: string;

interface Video {
  ageMinutes: number;
  counts: { viewCount: number; likeCount: number };
}

beforeAll(async () => {
  host = await startMediaHost();
  f = await startTikTokFixture(host.emulatorOptions);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-emulator-advance-'));
  env = { DATA_DIR: dataDir, TIKTOK_EMULATOR_URL: f.emulator.url };
  const me = await connectRaw(f.emulator.url, {}, ANALYTICS_GRANT);
  publicPost = (await publishPost(f.emulator.url, me.token, host, { title: 'Counted' }))!;
  expect(await publishPost(f.emulator.url, me.token, host, { privacy: 'SELF_ONLY' })).toBeNull();
}, 120_000);
afterAll(async () => {
  await f?.emulator.stop();
  await host?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function video(postId: string): Promise<Video> {
  const answer = await controlCall(f.emulator.url, 'GET', `/__control/videos/${postId}`);
  expect(answer.status).toBe(200);
  return (await answer.json()) as Video;
}

async function curveViews(postId: string, ageMinutes: number): Promise<number> {
  const answer = await controlCall(f.emulator.url, 'GET', `/__control/videos/${postId}/curve?ageMinutes=${ageMinutes}`);
  return ((await answer.json()) as { counts: { viewCount: number } }).counts.viewCount;
}

async function failure(args: string[], extraEnv: Record<string, string> = env): Promise<string> {
  const error = await runPostdeck(args, extraEnv).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error).toBeInstanceOf(Error);
  return error!.message;
}

describe('the TikTok emulator clock for a trial', { timeout: 120_000 }, () => {
  it('`postdeck emulator advance 2h` ages every post two hours: the counts grow, and it lists them', async () => {
    const before = await video(publicPost);
    expect(before.ageMinutes).toBeLessThan(60);
    const out = await runPostdeck(['emulator', 'advance', '2h'], env);
    const after = await video(publicPost);
    expect(after.ageMinutes).toBeGreaterThanOrEqual(before.ageMinutes + 120);
    expect(after.counts.viewCount).toBeGreaterThanOrEqual(await curveViews(publicPost, 120));
    expect(after.counts.viewCount).toBeGreaterThan(before.counts.viewCount);
    expect(out).toContain(`TikTok emulator at ${f.emulator.url}: its posts are now 2h older than real time`);
    expect(out).toMatch(new RegExp(`post ${publicPost}, 2h( \\d+m)? old: \\d+ views, \\d+ likes`));
    expect(out).toContain('a SELF_ONLY post: TikTok counts only public posts');
  });

  it("the emulator's clock page moves it on with a button, and shows the counts", async () => {
    const before = await video(publicPost);
    const page = await fetch(`${f.emulator.url}/__control/clock/page`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Advance 24 hours');
    expect(html).toContain(`Post ${publicPost}`);
    const pressed = await fetch(`${f.emulator.url}/__control/clock/page`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'hours=24',
      redirect: 'manual',
    });
    expect(pressed.status).toBe(302);
    expect(pressed.headers.get('location')).toBe('/__control/clock/page');
    const after = await video(publicPost);
    expect(after.ageMinutes).toBeGreaterThanOrEqual(before.ageMinutes + 24 * 60);
    expect(after.counts.viewCount).toBeGreaterThan(before.counts.viewCount);
    const shown = await (await fetch(`${f.emulator.url}/__control/clock/page`)).text();
    expect(shown).toContain('<strong>26 hours</strong> older than real time');
    expect(shown).toContain(`${after.counts.viewCount.toLocaleString('en-US')} views`);
    // Only its buttons' steps: anything else changes nothing.
    const refused = await fetch(`${f.emulator.url}/__control/clock/page`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'hours=-5',
      redirect: 'manual',
    });
    expect(refused.status).toBe(400);
    expect((await video(publicPost)).ageMinutes).toBeLessThan(after.ageMinutes + 60);
  });

  it('refuses a duration it cannot read, and says when no emulator runs', async () => {
    expect(await failure(['emulator', 'advance', 'soon'])).toContain('30m, 2h, 1d, 1d12h (got "soon")');
    expect(await failure(['emulator', 'advance', '40d'])).toContain('1m to 31d at a time');
    expect(await failure(['emulator', 'advance'])).toContain('emulator advance takes one duration');
    expect(await failure(['emulator', 'advance', '1h'], { DATA_DIR: dataDir })).toContain(
      `no TikTok emulator is running for ${dataDir}: start Postdeck first (npm start)`,
    );
    expect((await video(publicPost)).ageMinutes).toBeLessThan(27 * 60);
  });
});
