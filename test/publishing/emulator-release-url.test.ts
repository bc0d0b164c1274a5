import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPost } from '../../src/core/posts/view.js';
import { postPagesBaseUrl } from '../../src/core/providers/tiktok/publish/release-url.js';
import { calendarOf } from '../../src/http/web/posts-calendar.js';
import { postsView } from '../../src/http/web/posts-view.js';
import { makeJpeg } from '../support/media.js';
import { buildPost } from '../support/posts.js';
import {
  connectCreator,
  emulatorPosts,
  queuePost,
  settled,
  SLOW,
  startWorld,
  storeMedia,
  type PublishingWorld,
} from './support.js';
import { tiktokHttpOf } from '../../src/core/providers/tiktok/http-of.js';

// Against Postdeck's TikTok emulator (no TikTok credentials) a post's link opens the emulator's own
// post page: the account exists only there, so a tiktok.com link would lead nowhere.
let w: PublishingWorld;
beforeAll(async () => {
  w = await startWorld({}, { emulatorClient: true });
}, 60_000);
afterAll(async () => {
  await w.close();
});

describe('release URLs in emulator mode', SLOW, () => {
  it("point at the emulator's post page, which shows the post; the profile lists it", async () => {
    const { openId, platform } = await connectCreator(w);
    const images = [await storeMedia(w, await makeJpeg(1080, 1350)), await storeMedia(w, await makeJpeg(1080, 1350))];
    const post = await queuePost(w, platform, images, {
      content: 'Two slides from the emulator <b>test</b>',
      settings: {
        content_posting_method: 'DIRECT_POST',
        privacy_level: 'PUBLIC_TO_EVERYONE',
        title: 'Emulated carousel',
      },
    });
    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const [published] = (await emulatorPosts(w, openId)).posts;
    const id = published!.postIds[0]!;

    const handle = platform.displayHandle!;
    expect(done.releaseUrl).toBe(`${w.f.emulator.url}/@${handle}/photo/${id}`);
    expect(done.releaseUrl).not.toContain('tiktok.com');

    const page = await fetch(done.releaseUrl!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('A local emulator of TikTok, not TikTok');
    expect(html).toContain(`@${handle}`);
    expect(html).toContain('Emulated carousel');
    expect(html).toContain('Two slides from the emulator &#60;b&#62;test&#60;/b&#62;');
    // The slides as TikTok pulled them, from Postdeck's public media URLs.
    const photos = (published!.request.source_info as { photo_images: string[] }).photo_images;
    expect(photos).toHaveLength(2);
    for (const url of photos) expect(html).toContain(`<img src="${url.replaceAll('&', '&#38;')}"`);

    const profile = await (await fetch(`${w.f.emulator.url}/@${handle}`)).text();
    expect(profile).toContain(`href="/@${encodeURIComponent(handle)}/photo/${id}"`);
    // The wrong kind, an unknown id or an unknown account is not found.
    for (const wrong of [`/@${handle}/video/${id}`, `/@${handle}/photo/7000000000000000001`, '/@nobody.here']) {
      expect((await fetch(`${w.f.emulator.url}${wrong}`)).status, wrong).toBe(404);
    }
  });

  it('keep tiktok.com when Postdeck talks to TikTok (credentials set), whatever host the client calls', () => {
    const real = { ...tiktokHttpOf(w.t.deps).config, emulator: undefined };
    expect(postPagesBaseUrl(real)).toBe('https://www.tiktok.com');
    expect(postPagesBaseUrl(tiktokHttpOf(w.t.deps).config)).toBe(w.f.emulator.url);
  });

  it('label the calendar’s link for the emulator, and offer a plain-http link only there', async () => {
    const doc = await buildPost(w.t.deps, w.tenant.workspaceId, {
      state: 'PUBLISHED',
      scheduledFor: new Date('2031-03-12T10:00:00Z'),
      releaseId: '7300000000000000001',
      releaseUrl: `${w.f.emulator.url}/@someone/photo/7300000000000000001`,
    });
    const render = (emulator: boolean, name = 'TikTok') =>
      postsView({
        csrf: 'x',
        workspaceId: w.tenant.workspaceId,
        workspaceName: 'W',
        calendar: calendarOf('day', '2031-03-12', new Date('2031-03-01T00:00:00Z')),
        now: '00:00',
        posts: [
          {
            post: toPost(doc),
            account: 'A',
            shortAccount: 'A',
            network: { name, releaseLabel: `View in the ${name} emulator`, emulated: emulator },
            media: 'No media',
            thumbnail: null,
          },
        ],
        done: undefined,
        problem: undefined,
      }).value;
    expect(render(true)).toContain(
      `<a href="${doc.releaseUrl!}" rel="noreferrer noopener">View in the TikTok emulator</a>`,
    );
    expect(render(false)).not.toContain('<a href="http://');
    expect(render(false)).toContain('Published; TikTok has not shared its link yet.');
    // An Instagram post's card names its own network and link.
    expect(render(true, 'Instagram')).toContain('>View in the Instagram emulator</a>');
    expect(render(false, 'Instagram')).toContain('Published; Instagram has not shared its link yet.');
  });
});
