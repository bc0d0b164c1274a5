import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMp4 } from '../support/video.js';
import { graphErrorOf, Harness, jpeg } from './harness.js';

let h: Harness;
let image: string;
beforeAll(async () => {
  h = await Harness.start();
  image = h.media.serve('/i.jpg', await jpeg(1080, 1080));
});
afterAll(async () => {
  await h.close();
});

type User = { id: string; userId: string; token: string };

async function publishImage(user: User): Promise<string> {
  const container = await h.containerOf(user.userId, user.token, { image_url: image });
  const response = await h.graph('POST', `/${user.userId}/media_publish`, user.token, { creation_id: container });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

async function fault(user: User, body: Record<string, unknown>): Promise<void> {
  expect((await h.control('POST', `/__control/accounts/${user.id}/faults`, body)).status).toBe(201);
}

describe('faults', () => {
  it('reports 4 / 2207051 after a publish that happened: the container reads PUBLISHED and one post exists', async () => {
    const user = await h.connect();
    await fault(user, { endpoint: 'media_publish', code: 4, subcode: 2207051, afterSuccess: true });
    const container = await h.containerOf(user.userId, user.token, { image_url: image });
    const answer = await h.graph('POST', `/${user.userId}/media_publish`, user.token, { creation_id: container });
    expect(await graphErrorOf(answer)).toMatchObject({
      code: 4,
      error_subcode: 2207051,
      message: 'We restrict certain activity to protect our community. Tell us if you think we made a mistake.',
    });
    expect(await h.settled(container, user.token)).toMatchObject({ status_code: 'PUBLISHED' });
    const retry = await h.graph('POST', `/${user.userId}/media_publish`, user.token, { creation_id: container });
    expect(retry.status).toBe(200);
    const listed = (await (await h.control('GET', `/__control/media?accountId=${user.id}`)).json()) as {
      media: unknown[];
    };
    expect(listed.media).toHaveLength(1);
  });

  it('cuts the connection after a publish that happened (a timeout): the container reads PUBLISHED', async () => {
    const user = await h.connect();
    await fault(user, { endpoint: 'media_publish', afterSuccess: true, drop: true });
    const container = await h.containerOf(user.userId, user.token, { image_url: image });
    const cut = await h.graph('POST', `/${user.userId}/media_publish`, user.token, { creation_id: container }).then(
      () => 'answered',
      () => 'cut',
    );
    expect(cut).toBe('cut');
    expect(await h.settled(container, user.token)).toMatchObject({ status_code: 'PUBLISHED' });
  });

  it('refuses a fault without a code (unless it drops the connection) or for an unknown endpoint', async () => {
    const user = await h.connect();
    for (const body of [{ endpoint: 'media_publish' }, { endpoint: 'nope', code: 4 }]) {
      const answer = await h.control('POST', `/__control/accounts/${user.id}/faults`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    expect((await h.control('POST', '/__control/accounts/404/faults', { endpoint: '*', code: 4 })).status).toBe(404);
  });

  it('answers a spurious 100 / 33 on a container read once, then the real status', async () => {
    const user = await h.connect();
    const container = await h.containerOf(user.userId, user.token, { image_url: image });
    await fault(user, { endpoint: 'container_status', code: 100, subcode: 33 });
    const first = await h.graph('GET', `/${container}`, user.token, { fields: 'status_code' });
    expect(await graphErrorOf(first)).toMatchObject({ code: 100, error_subcode: 33 });
    expect((await h.settled(container, user.token)).status_code).toBe('FINISHED');
  });

  it('throttles with 80002 and usage headers at 100 % with estimated_time_to_regain_access', async () => {
    const user = await h.connect();
    await fault(user, { endpoint: '*', code: 80002, regainMinutes: 7, times: 2 });
    for (let i = 0; i < 2; i += 1) {
      const answer = await h.graph('GET', '/me', user.token, { fields: 'username' });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.headers.get('x-app-usage') ?? '{}')).toMatchObject({ call_count: 100 });
      const buc = JSON.parse(answer.headers.get('x-business-use-case-usage') ?? '{}') as Record<string, unknown[]>;
      expect(buc[user.userId]).toEqual([
        expect.objectContaining({ type: 'instagram', call_count: 100, estimated_time_to_regain_access: 7 }),
      ]);
      expect(await graphErrorOf(answer)).toMatchObject({ code: 80002 });
    }
    expect((await h.graph('GET', '/me', user.token)).status).toBe(200);
  });

  it('fails a container creation with an injected transient fetch error (9004 / 2207052) once', async () => {
    const user = await h.connect();
    await fault(user, { endpoint: 'create_container', code: 9004, subcode: 2207052 });
    expect(await graphErrorOf(await h.create(user.userId, user.token, { image_url: image }))).toMatchObject({
      code: 9004,
      error_subcode: 2207052,
    });
    await h.containerOf(user.userId, user.token, { image_url: image });
  });
});

describe('insights', () => {
  it('answers the feed image metric set with the numbers set by the control API', async () => {
    const user = await h.connect();
    const mediaId = await publishImage(user);
    await h.control('PUT', `/__control/media/${mediaId}/insights`, {
      values: { views: 120, reach: 80, profile_visits: 3 },
    });
    const answer = await h.graph('GET', `/${mediaId}/insights`, user.token, {
      metric: 'views,reach,profile_visits,saved',
    });
    const body = (await answer.json()) as {
      data: { name: string; values: { value: number }[]; period: string; id: string }[];
    };
    expect(body.data.map((row) => [row.name, row.values[0]?.value])).toEqual([
      ['views', 120],
      ['reach', 80],
      ['profile_visits', 3],
      ['saved', 0],
    ]);
    expect(body.data[0]).toMatchObject({ period: 'lifetime', id: `${mediaId}/insights/views/lifetime` });
  });

  it('refuses a metric of another product type, the retired impressions and plays, and unknown metrics', async () => {
    const user = await h.connect();
    const mediaId = await publishImage(user);
    const reelsOnly = await h.graph('GET', `/${mediaId}/insights`, user.token, {
      metric: 'views,ig_reels_avg_watch_time',
    });
    expect((await graphErrorOf(reelsOnly)).message).toBe(
      '(#100) The Media Insights API does not support the ig_reels_avg_watch_time metric for this media product type.',
    );
    for (const metric of ['impressions', 'plays']) {
      const retired = await h.graph('GET', `/${mediaId}/insights`, user.token, { metric });
      expect(await graphErrorOf(retired)).toMatchObject({ code: 100 });
    }
    const unknown = await h.graph('GET', `/${mediaId}/insights`, user.token, { metric: 'nope' });
    expect((await graphErrorOf(unknown)).message).toContain('metric[0] must be one of the following values');
  });

  it('answers the Reels set for a Reel, and no insights for carousel children while the album has them', async () => {
    const user = await h.connect();
    const url = h.media.serve('/reel.mp4', buildMp4({ durationSec: 6 }));
    const reel = await h.containerOf(user.userId, user.token, { media_type: 'REELS', video_url: url });
    await h.settled(reel, user.token);
    const reelId = (
      (await (await h.graph('POST', `/${user.userId}/media_publish`, user.token, { creation_id: reel })).json()) as {
        id: string;
      }
    ).id;
    const reelsAnswer = await h.graph('GET', `/${reelId}/insights`, user.token, {
      metric: 'views,ig_reels_avg_watch_time,reels_skip_rate',
    });
    expect(reelsAnswer.status).toBe(200);
    const profileVisits = await h.graph('GET', `/${reelId}/insights`, user.token, { metric: 'profile_visits' });
    expect(await graphErrorOf(profileVisits)).toMatchObject({ code: 100 });

    const items = [];
    for (let i = 0; i < 2; i += 1)
      items.push(await h.containerOf(user.userId, user.token, { image_url: image, is_carousel_item: 'true' }));
    const parent = await h.containerOf(user.userId, user.token, { media_type: 'CAROUSEL', children: items.join(',') });
    const albumId = (
      (await (await h.graph('POST', `/${user.userId}/media_publish`, user.token, { creation_id: parent })).json()) as {
        id: string;
      }
    ).id;
    expect((await h.graph('GET', `/${albumId}/insights`, user.token, { metric: 'views,reach' })).status).toBe(200);
    const album = (await (await h.graph('GET', `/${albumId}`, user.token, { fields: 'children' })).json()) as {
      children: { data: { id: string }[] };
    };
    const child = await h.graph('GET', `/${album.children.data[0]?.id}/insights`, user.token, { metric: 'views' });
    expect((await graphErrorOf(child)).message).toContain(
      'not available for any media within an Instagram Media album',
    );
  });

  it('answers an empty data set while numbers are unavailable and (#10) for too few viewers', async () => {
    const user = await h.connect();
    const mediaId = await publishImage(user);
    await h.control('PUT', `/__control/media/${mediaId}/insights`, { unavailable: 'empty' });
    expect(await (await h.graph('GET', `/${mediaId}/insights`, user.token, { metric: 'views' })).json()).toEqual({
      data: [],
    });
    await h.control('PUT', `/__control/media/${mediaId}/insights`, { unavailable: 'not_enough_viewers' });
    const few = await h.graph('GET', `/${mediaId}/insights`, user.token, { metric: 'views' });
    expect(await graphErrorOf(few)).toMatchObject({
      code: 10,
      message: '(#10) Not enough viewers for the media to show insights',
    });
  });

  it('needs the insights scope (code 10) and answers account totals and followers', async () => {
    const user = await h.connect({ followersCount: 250, insights: { views: 900, reach: 400 } });
    const totals = await h.graph('GET', `/${user.userId}/insights`, user.token, {
      metric: 'views,reach',
      period: 'day',
      metric_type: 'total_value',
    });
    const body = (await totals.json()) as { data: { name: string; total_value: { value: number } }[] };
    expect(body.data.map((row) => [row.name, row.total_value.value])).toEqual([
      ['views', 900],
      ['reach', 400],
    ]);
    const series = await h.graph('GET', `/${user.userId}/insights`, user.token, { metric: 'views', period: 'day' });
    expect(await graphErrorOf(series)).toMatchObject({ code: 100 });
    const me = await h.graph('GET', '/me', user.token, { fields: 'followers_count,follows_count' });
    expect(await me.json()).toMatchObject({ followers_count: 250 });
    const small = await h.connect({ deniedScopes: ['instagram_business_manage_insights'] });
    const denied = await h.graph('GET', `/${small.userId}/insights`, small.token, { metric: 'reach', period: 'day' });
    expect(await graphErrorOf(denied)).toMatchObject({ code: 10 });
  });
});
