import type { CoreDeps, Scope } from '../../src/core/context.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import {
  completeTikTokConnection,
  startTikTokConnection,
  type TikTokCallback,
} from '../../src/core/providers/tiktok/connect/connect.js';
import { answerConsent, type TikTokFixture } from '../support/tiktok.js';

/** The system scope of a tenant's workspace. */
export function systemScope(tenant: { workspaceId: string; accountId: string }): Scope {
  return { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' } };
}

/** The callback query the emulator redirected to, as core takes it. */
export function callbackFrom(url: URL): TikTokCallback {
  const q = url.searchParams;
  return {
    state: q.get('state') ?? '',
    code: q.get('code') ?? undefined,
    error: q.get('error') ?? undefined,
    errorDescription: q.get('error_description') ?? undefined,
  };
}

/** Runs the whole connection (state, consent page, callback) for `openId` and returns the platform. */
export async function connectAccount(
  deps: CoreDeps,
  scope: Scope,
  openId: string,
  binding = 'session:test',
): Promise<PlatformDoc> {
  const started = await startTikTokConnection(deps, scope, { binding });
  const result = await completeTikTokConnection(
    deps,
    callbackFrom(await answerConsent(started.authorizeUrl, { openId })),
    binding,
  );
  if (result.outcome !== 'connected') throw new Error(`connection ${result.outcome}: ${result.description}`);
  return result.platform;
}

/** The emulator's live grant of `openId` (the tokens TikTok issued), newest first. */
export function liveGrant(f: TikTokFixture, openId: string): { accessToken: string; refreshToken: string } {
  const grants = f.emulator.control.grants.filter((g) => g.openId === openId && !g.revoked);
  const grant = grants[grants.length - 1];
  if (!grant) throw new Error(`no live grant for ${openId}`);
  return grant;
}

/** Calls the emulator's control API. */
export async function control(f: TikTokFixture, path: string, body: unknown, method = 'POST'): Promise<void> {
  const answer = await fetch(`${f.emulator.url}/__control${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`control ${path} answered ${answer.status}`);
}

/** A fetch that counts refresh-token grants sent to TikTok, passing everything through. */
export function countingFetch(): { fetch: typeof fetch; refreshes: () => number } {
  let refreshes = 0;
  const counted: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('grant_type=refresh_token')) refreshes += 1;
    return fetch(input, init);
  };
  return { fetch: counted, refreshes: () => refreshes };
}
