import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/core/context.js';
import type { AppError } from '../../src/core/errors.js';
import { disconnectPlatform } from '../../src/core/platforms/disconnect-platform.js';
import { withTikTokToken } from '../../src/core/providers/tiktok/connect/token-access.js';
import { readTokens } from '../../src/core/providers/tiktok/connect/tokens.js';
import { dueForUpkeep, tiktokTokenUpkeepJob } from '../../src/core/providers/tiktok/connect/upkeep-job.js';
import { TikTokApiError } from '../../src/core/providers/tiktok/errors.js';
import { TikTokHttp } from '../../src/core/providers/tiktok/http.js';
import { refreshTokens } from '../../src/core/providers/tiktok/oauth.js';
import { getUserInfo } from '../../src/core/providers/tiktok/user-info.js';
import { createLogger } from '../../src/logger.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { connectAccount, control, countingFetch, liveGrant, systemScope } from './support.js';
import { tiktokHttpOf } from '../../src/core/providers/tiktok/http-of.js';
import { withTikTokHttp } from '../support/tiktok.js';

// 20-minute access tokens: due for the upkeep (margin: a quarter of the lifetime, at least two
// 10-minute runs), but not "about to expire" for an on-demand call (a tenth, at most 5 minutes).
const ACCESS_TTL_SEC = 1200;

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
const logLines: string[] = [];
beforeAll(async () => {
  f = await startTikTokFixture({ accessTtlSec: ACCESS_TTL_SEC });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  t = await openTestDatabase({ tiktok: f.config, logger: createLogger({ level: 'trace', destination: sink }) });
  server = await startTestServer(t);
});
afterAll(async () => {
  await server.stop();
  await t.close();
  await f.emulator.stop();
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return error as AppError;
}

async function connected(fields: Record<string, unknown> = {}) {
  const tenant = await buildTenant(t.deps);
  const account = await f.createAccount(fields);
  const platform = await connectAccount(t.deps, systemScope(tenant), account.openId);
  return { tenant, account, platform };
}

/** Core deps whose TikTok client counts refreshes: a separate client, as another process would have. */
function countingDeps(): { deps: CoreDeps; refreshes: () => number } {
  const counting = countingFetch();
  const tiktok = new TikTokHttp(f.config, t.deps.logger, { fetch: counting.fetch, baseDelayMs: 5 });
  return { deps: withTikTokHttp(t.deps, tiktok), refreshes: counting.refreshes };
}

const expireStoredAccess = (platformId: string) =>
  t.deps.db.platformTokens.updateOne({ _id: platformId }, { $set: { accessTokenExpiresAt: new Date(Date.now() - 1) } });

async function listedIds(apiKey: string): Promise<string[]> {
  const body = (await (await server.request('/public/v1/platforms', { apiKey })).json()) as {
    platforms: { id: string }[];
  };
  return body.platforms.map((p) => p.id);
}

describe('tokens at rest', () => {
  it('keeps neither token in clear in the raw document, and opens both to what TikTok issued', async () => {
    const { account, platform } = await connected();
    const grant = liveGrant(f, account.openId);
    const raw = await t.db.collection('platform_tokens').findOne({ _id: platform._id as never });
    const text = JSON.stringify(raw);
    expect(text).not.toContain(grant.accessToken);
    expect(text).not.toContain(grant.refreshToken);
    // Not even the random part without TikTok's prefix.
    expect(text).not.toContain(grant.accessToken.slice(4));
    expect(text).not.toContain(grant.refreshToken.slice(4));
    expect(raw?.accessToken).toMatch(/^v1\./);
    expect(t.deps.secrets.open(raw?.accessToken as string)).toBe(grant.accessToken);
    expect(t.deps.secrets.open(raw?.refreshToken as string)).toBe(grant.refreshToken);
    // And nothing about tokens on the platform document itself.
    const platformText = JSON.stringify(await t.db.collection('platforms').findOne({ _id: platform._id as never }));
    expect(platformText).not.toContain(grant.refreshToken.slice(4));
  });
});

describe('withTikTokToken', () => {
  it('uses the stored token without refreshing while it is fresh', async () => {
    const { account, platform } = await connected();
    const { deps, refreshes } = countingDeps();
    const user = await withTikTokToken(deps, platform, (token) => getUserInfo(tiktokHttpOf(deps), token));
    expect(user.openId).toBe(account.openId);
    expect(refreshes()).toBe(0);
  });

  it('refreshes first when the stored token has expired, storing the rotated refresh token', async () => {
    const { account, platform } = await connected();
    const before = await readTokens(t.deps, platform._id);
    await expireStoredAccess(platform._id);
    const { deps, refreshes } = countingDeps();
    const refreshing = Date.now();
    const user = await withTikTokToken(deps, platform, (token) => getUserInfo(tiktokHttpOf(deps), token));
    const refreshed = Date.now();
    expect(user.openId).toBe(account.openId);
    expect(refreshes()).toBe(1);
    const after = await readTokens(t.deps, platform._id);
    expect(after?.refreshToken).not.toBe(before?.refreshToken);
    expect(after?.refreshToken).toBe(liveGrant(f, account.openId).refreshToken);
    // Scheduled from expires_in (counted from TikTok's answer, during the refresh), not a fixed lifetime.
    expect(after!.accessTokenExpiresAt.getTime()).toBeGreaterThanOrEqual(refreshing + ACCESS_TTL_SEC * 1000);
    expect(after!.accessTokenExpiresAt.getTime()).toBeLessThanOrEqual(refreshed + ACCESS_TTL_SEC * 1000);
    const stored = await t.deps.db.platforms.findOne({ _id: platform._id });
    expect(stored?.tokenExpiresAt?.getTime()).toBe(after?.accessTokenExpiresAt.getTime());
  });

  it('on access_token_invalid mid-call: refreshes once and retries the call once', async () => {
    const { account, platform } = await connected();
    await control(f, `/accounts/${account.openId}/tokens`, { action: 'expire_access' });
    const { deps, refreshes } = countingDeps();
    let calls = 0;
    const user = await withTikTokToken(deps, platform, (token) => {
      calls += 1;
      return getUserInfo(tiktokHttpOf(deps), token);
    });
    expect(user.openId).toBe(account.openId);
    expect(calls).toBe(2);
    expect(refreshes()).toBe(1);
  });

  it('gives up after one retry when the fresh token is refused too', async () => {
    const { account, platform } = await connected();
    await control(f, `/accounts/${account.openId}/tokens`, { action: 'expire_access' });
    await control(f, `/accounts/${account.openId}/failures`, {
      endpoint: 'user_info',
      status: 401,
      code: 'access_token_invalid',
      times: 5,
    });
    const { deps, refreshes } = countingDeps();
    let calls = 0;
    const error = await rejection(
      withTikTokToken(deps, platform, (token) => {
        calls += 1;
        return getUserInfo(tiktokHttpOf(deps), token);
      }),
    );
    expect(error).toBeInstanceOf(TikTokApiError);
    expect(calls).toBe(2);
    expect(refreshes()).toBe(1);
  });

  it('refreshes exactly once for concurrent calls on an expired token, across separate clients', async () => {
    const { account, platform } = await connected();
    await control(f, `/accounts/${account.openId}/tokens`, { action: 'expire_access' });
    await expireStoredAccess(platform._id);
    const clients = Array.from({ length: 3 }, () => countingDeps());
    const calls = clients.flatMap(({ deps }) =>
      Array.from({ length: 3 }, () =>
        withTikTokToken(deps, platform, (token) => getUserInfo(tiktokHttpOf(deps), token)),
      ),
    );
    const users = await Promise.all(calls);
    expect(users.every((u) => u.openId === account.openId)).toBe(true);
    expect(clients.reduce((sum, c) => sum + c.refreshes(), 0)).toBe(1);
    expect((await t.deps.db.platforms.findOne({ _id: platform._id }))?.refreshNeeded).toBe(false);
  });

  it.each(['expire_refresh', 'revoke'])(
    'after %s: marks the platform refreshNeeded, asks to reconnect, and it leaves the list',
    async (action) => {
      const { tenant, account, platform } = await connected();
      expect(await listedIds(tenant.apiKey)).toEqual([platform._id]);
      await control(f, `/accounts/${account.openId}/tokens`, { action });
      await expireStoredAccess(platform._id);
      const error = await rejection(withTikTokToken(t.deps, platform, (token) => getUserInfo(f.http, token)));
      expect(error.code).toBe('conflict');
      expect(error.message).toMatch(/Reconnect this TikTok account/);
      expect((await t.deps.db.platforms.findOne({ _id: platform._id }))?.refreshNeeded).toBe(true);
      expect(await listedIds(tenant.apiKey)).toEqual([]);
      // The stale document given to a later call is checked against the stored one.
      const again = await rejection(withTikTokToken(t.deps, platform, (token) => getUserInfo(f.http, token)));
      expect(again.code).toBe('conflict');
    },
  );

  it('a transient refresh failure (5xx) throws without marking the platform', async () => {
    const { account, platform } = await connected();
    await expireStoredAccess(platform._id);
    await control(f, `/accounts/${account.openId}/failures`, { endpoint: 'token', status: 503, code: 'server_error' });
    const error = await rejection(withTikTokToken(t.deps, platform, (token) => getUserInfo(f.http, token)));
    expect(error.code).toBe('provider_error');
    expect((await t.deps.db.platforms.findOne({ _id: platform._id }))?.refreshNeeded).toBe(false);
    // The next call refreshes fine with the untouched refresh token.
    const user = await withTikTokToken(t.deps, platform, (token) => getUserInfo(f.http, token));
    expect(user.openId).toBe(account.openId);
  });
});

describe('the upkeep job', () => {
  const run = (deps: CoreDeps = t.deps) =>
    tiktokTokenUpkeepJob.perform({}, { deps, jobId: 'test', attempt: 1, touch: () => Promise.resolve() });

  it('decides "due" from the token lifetime: a quarter of it, at least two runs', () => {
    const issuedAt = new Date('2030-01-01T00:00:00Z');
    const at = (min: number) => new Date(issuedAt.getTime() + min * 60_000);
    const twoHours = { issuedAt, accessTokenExpiresAt: at(120) };
    expect(dueForUpkeep(twoHours, at(89))).toBe(false);
    expect(dueForUpkeep(twoHours, at(91))).toBe(true);
    const day = { issuedAt, accessTokenExpiresAt: at(1440) };
    expect(dueForUpkeep(day, at(1000))).toBe(false);
    expect(dueForUpkeep(day, at(1090))).toBe(true);
    const short = { issuedAt, accessTokenExpiresAt: at(30) };
    expect(dueForUpkeep(short, at(9))).toBe(false);
    expect(dueForUpkeep(short, at(11))).toBe(true);
  });

  it('refreshes a due token: the stored refresh token changes and the old one is dead at TikTok', async () => {
    const { account, platform } = await connected();
    const before = await readTokens(t.deps, platform._id);
    await control(f, `/accounts/${account.openId}/tokens`, { action: 'expire_access' });
    await run();
    const after = await readTokens(t.deps, platform._id);
    expect(after?.refreshToken).not.toBe(before?.refreshToken);
    expect(after?.refreshToken).toBe(liveGrant(f, account.openId).refreshToken);
    const old = await rejection(refreshTokens(f.http, before!.refreshToken));
    expect(old).toBeInstanceOf(TikTokApiError);
    expect((old as TikTokApiError).needsReconnect).toBe(true);
    expect((await getUserInfo(f.http, after!.accessToken)).openId).toBe(account.openId);
  });

  it('leaves tokens that are not due alone', async () => {
    const { platform } = await connected();
    const far = new Date(Date.now() + 10 * 3_600_000);
    await t.deps.db.platformTokens.updateOne({ _id: platform._id }, { $set: { accessTokenExpiresAt: far } });
    const before = await readTokens(t.deps, platform._id);
    await run();
    expect((await readTokens(t.deps, platform._id))?.refreshToken).toBe(before?.refreshToken);
  });

  it('marks a platform whose refresh token died refreshNeeded', async () => {
    const { account, platform } = await connected();
    await control(f, `/accounts/${account.openId}/tokens`, { action: 'expire_refresh' });
    await run();
    expect((await t.deps.db.platforms.findOne({ _id: platform._id }))?.refreshNeeded).toBe(true);
  });
});

describe('disconnecting', () => {
  it('revokes at TikTok, deletes the sealed tokens and disables the platform', async () => {
    const { tenant, account, platform } = await connected();
    const grant = liveGrant(f, account.openId);
    const done = await disconnectPlatform(t.deps, systemScope(tenant), platform._id);
    expect(done.disabled).toBe(true);
    const refused = await rejection(getUserInfo(f.http, grant.accessToken));
    expect(refused).toMatchObject({ tiktokCode: 'access_token_invalid', httpStatus: 401 });
    expect(await t.deps.db.platformTokens.findOne({ _id: platform._id })).toBeNull();
    expect((await t.deps.db.platforms.findOne({ _id: platform._id }))?.disabled).toBe(true);
    expect(await listedIds(tenant.apiKey)).toEqual([]);
    const use = await rejection(withTikTokToken(t.deps, platform, (token) => getUserInfo(f.http, token)));
    expect(use.code).toBe('conflict');
  });

  it('still disconnects when the grant is already dead at TikTok', async () => {
    const { tenant, account, platform } = await connected();
    await control(f, `/accounts/${account.openId}/tokens`, { action: 'revoke' });
    await disconnectPlatform(t.deps, systemScope(tenant), platform._id);
    expect((await t.deps.db.platforms.findOne({ _id: platform._id }))?.disabled).toBe(true);
  });

  it("answers not_found for another workspace's platform and leaves it connected", async () => {
    const { platform } = await connected();
    const other = await buildTenant(t.deps);
    const error = await rejection(disconnectPlatform(t.deps, systemScope(other), platform._id));
    expect(error.code).toBe('not_found');
    expect(await t.deps.db.platformTokens.findOne({ _id: platform._id })).not.toBeNull();
  });
});

describe('logs', () => {
  it('never contain an access token, a refresh token or a code', async () => {
    const { account, platform } = await connected();
    const issued = { ...liveGrant(f, account.openId) };
    await expireStoredAccess(platform._id);
    await withTikTokToken(t.deps, platform, (token) => getUserInfo(f.http, token));
    const rotated = liveGrant(f, account.openId);
    expect(rotated.refreshToken).not.toBe(issued.refreshToken);
    const text = logLines.join('');
    expect(text).toContain('tiktok account connected');
    expect(text).toContain('tiktok tokens refreshed');
    // This flow's tokens, old and new, and every token any test of this file left at the emulator.
    const secrets = [issued, rotated, ...f.emulator.control.grants].flatMap((g) => [g.accessToken, g.refreshToken]);
    for (const secret of secrets) expect(text).not.toContain(secret.slice(4));
  });
});
