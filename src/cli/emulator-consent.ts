import { randomBytes } from 'node:crypto';

/**
 * The admin CLI's side of the built-in TikTok emulator: its control API (not part of TikTok) and
 * the person's part of its consent page, played without a browser.
 */

/** The privacy options a private TikTok account offers (contract 4.1). */
const PRIVATE_ACCOUNT_OPTIONS = ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];

/** Creates a new emulated account (private: private-account privacy options, no duet or stitch). */
export async function createEmulatedAccount(
  emulatorUrl: string,
  options: { private: boolean },
): Promise<{ openId: string; displayName: string; username: string }> {
  const suffix = randomBytes(3).toString('hex');
  const fields: Record<string, unknown> = {
    displayName: `Emulated Creator ${suffix}`,
    username: `emulated.${suffix}`,
    ...(options.private
      ? { privacyLevelOptions: PRIVATE_ACCOUNT_OPTIONS, duetDisabled: true, stitchDisabled: true }
      : {}),
  };
  const answer = await fetch(`${emulatorUrl}/__control/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  });
  if (answer.status !== 201) throw new Error(`the TikTok emulator refused a new account (HTTP ${answer.status})`);
  return (await answer.json()) as { openId: string; displayName: string; username: string };
}

/**
 * Opens the emulator's consent page at `authorizeUrl`, picks `openId` and presses Authorize, as a
 * person would; returns the callback URL the emulator redirects to (not visited: the caller
 * completes the connection with its code and state).
 */
export async function authorizeOnEmulator(authorizeUrl: string, openId: string): Promise<URL> {
  const page = await fetch(authorizeUrl, { redirect: 'manual' });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`the TikTok emulator's consent page answered HTTP ${page.status}`);
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error("the TikTok emulator's consent page has no form");
  const form = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.set(match[1] ?? '', decodeEntities(match[2] ?? ''));
  }
  form.set('open_id', openId);
  form.set('decision', 'authorize');
  const answer = await fetch(new URL(decodeEntities(action), authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  const location = answer.headers.get('location');
  if (answer.status !== 302 || !location) throw new Error(`the TikTok emulator answered HTTP ${answer.status}`);
  return new URL(location);
}

// The emulator escapes with numeric entities only (src/emulators/tiktok/escape-html.ts).
function decodeEntities(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}
