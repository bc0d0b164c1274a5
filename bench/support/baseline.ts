import { authorizeOnEmulator, createEmulatedAccount } from '../../src/cli/emulator-consent.js';
import { TIKTOK_CALLBACK_PATH } from '../../src/app/tiktok-setup.js';
import type { Cluster } from './cluster.js';

/** TikTok's init limit per access token and minute (contract 3), which the emulator enforces too. */
const INITS_PER_TOKEN = 6;

/**
 * The emulator's own response time for a photo Direct Post init, measured from this process: `calls`
 * sequential POST /v2/post/publish/content/init/ with the body Postdeck sends (PULL_FROM_URL of
 * `photoUrl`), spread over fresh accounts connected by raw OAuth so no token passes TikTok's 6 a
 * minute. Returns each round trip in ms.
 */
export async function emulatorInitTimes(cluster: Cluster, photoUrl: string, calls: number): Promise<number[]> {
  const tokens: string[] = [];
  for (let i = 0; i < Math.ceil(calls / INITS_PER_TOKEN); i++) tokens.push(await rawToken(cluster));
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const body = {
      media_type: 'PHOTO',
      post_mode: 'DIRECT_POST',
      post_info: { privacy_level: 'PUBLIC_TO_EVERYONE', description: `baseline ${i}`, disable_comment: true },
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: [photoUrl] },
    };
    const started = performance.now();
    const answer = await fetch(`${cluster.emulator.url}/v2/post/publish/content/init/`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens[Math.floor(i / INITS_PER_TOKEN)] ?? ''}`,
        'content-type': 'application/json; charset=UTF-8',
      },
      body: JSON.stringify(body),
    });
    const text = await answer.text();
    times.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`baseline init answered ${answer.status}: ${text}`);
  }
  return times;
}

/** An access token of a new emulated account, by the consent page and the token endpoint (no Postdeck). */
async function rawToken(cluster: Cluster): Promise<string> {
  const account = await createEmulatedAccount(cluster.emulator.url, { private: false });
  const redirectUri = `${cluster.apiUrl}${TIKTOK_CALLBACK_PATH}`;
  const authorize = new URL('/v2/auth/authorize/', cluster.emulator.url);
  authorize.search = new URLSearchParams({
    client_key: 'emulator-client-key',
    scope: 'user.info.basic,video.publish',
    redirect_uri: redirectUri,
    state: 'baseline',
    response_type: 'code',
  }).toString();
  const callback = await authorizeOnEmulator(authorize.toString(), account.openId);
  const answer = await fetch(`${cluster.emulator.url}/v2/oauth/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_key: 'emulator-client-key',
      client_secret: 'emulator-client-secret',
      code: callback.searchParams.get('code') ?? '',
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
    }).toString(),
  });
  const tokens = (await answer.json()) as { access_token?: string };
  if (!tokens.access_token) throw new Error(`the emulator gave no token: ${JSON.stringify(tokens)}`);
  return tokens.access_token;
}
