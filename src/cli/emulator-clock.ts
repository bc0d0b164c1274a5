import { findRunningTikTokEmulator } from '../app/tiktok-emulator.js';
import { externalTikTokEmulator, usesTikTokEmulator } from '../app/tiktok-setup.js';
import { cliRuntime } from './runtime.js';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
/** The furthest one command moves the clock: a post's collection ends at 30 days. */
const MAX_ADVANCE_MS = 31 * UNIT_MS.d!;
/** How many of the newest emulated posts the command lists with their counts. */
const POSTS_SHOWN = 10;

/**
 * The milliseconds in a duration such as `90m`, `2h`, `1d` or `1d12h`; an error naming the form otherwise.
 */
export function parseDuration(text: string | undefined): number {
  const parts = text === undefined ? null : /^(?:\d+[mhd])+$/u.exec(text.trim());
  if (!text || !parts) {
    throw new Error(
      `give how far to move the clock, as minutes, hours or days: 30m, 2h, 1d, 1d12h (got "${text ?? ''}")`,
    );
  }
  let ms = 0;
  for (const [, n, unit] of text.trim().matchAll(/(\d+)([mhd])/gu)) ms += Number(n) * UNIT_MS[unit!]!;
  if (ms <= 0 || ms > MAX_ADVANCE_MS) throw new Error(`the clock moves forward by 1m to 31d at a time (got "${text}")`);
  return ms;
}

interface ControlPost {
  status: string;
  postIds: string[];
  effectivePrivacyLevel: string | null;
  settledAt: string | null;
}
interface ControlVideo {
  postId: string;
  listed: boolean;
  ageMinutes: number;
  counts: { viewCount: number; likeCount: number; commentCount: number; shareCount: number };
}

/**
 * `postdeck emulator advance <duration>`: ages every post of the TikTok emulator this install uses by
 * `duration` (its post clock, `POST /__control/clock`), so their counts grow as hours or days of TikTok would,
 * then lists the newest posts with their counts now. Postdeck's collector reads them at each post's next snapshot.
 */
export async function advanceEmulatorCommand(duration: string | undefined): Promise<void> {
  const advanceMs = parseDuration(duration);
  const apiUrl = await emulatorUrl();
  const clock = await control<{ offsetMs: number; postNow: string }>(apiUrl, 'POST', '/clock', { advanceMs });
  const lines = [
    `TikTok emulator at ${apiUrl}: its posts are now ${describe(clock.offsetMs)} older than real time (post clock ${clock.postNow}).`,
  ];
  const { posts } = await control<{ posts: ControlPost[] }>(apiUrl, 'GET', '/posts');
  const published = posts
    .filter((post) => post.status === 'PUBLISH_COMPLETE')
    .sort((a, b) => (b.settledAt ?? '').localeCompare(a.settledAt ?? ''))
    .slice(0, POSTS_SHOWN);
  for (const post of published) {
    const [postId] = post.postIds;
    if (postId === undefined) {
      lines.push(`  a ${post.effectivePrivacyLevel ?? 'private'} post: TikTok counts only public posts`);
      continue;
    }
    const video = await control<ControlVideo>(apiUrl, 'GET', `/videos/${postId}`);
    const { viewCount, likeCount, commentCount, shareCount } = video.counts;
    lines.push(
      `  post ${postId}, ${describe(video.ageMinutes * UNIT_MS.m!)} old: ${viewCount} views, ${likeCount} likes, ${commentCount} comments, ${shareCount} shares`,
    );
  }
  if (published.length > 0) {
    lines.push("Postdeck reads them at each post's next snapshot (its first comes 3 minutes after publishing).");
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The control API of the emulator this install's settings point at: TIKTOK_EMULATOR_URL, else the built-in one. */
async function emulatorUrl(): Promise<string> {
  const { config } = cliRuntime({ logsTo: 'stderr', level: 'warn' });
  if (!usesTikTokEmulator(config)) {
    throw new Error(
      'TikTok credentials are set (TIKTOK_CLIENT_KEY): this server talks to the real TikTok, whose clock is real',
    );
  }
  const external = externalTikTokEmulator(config);
  const running = external ?? (await findRunningTikTokEmulator(config.dataDir));
  if (!running)
    throw new Error(`no TikTok emulator is running for ${config.dataDir}: start Postdeck first (npm start)`);
  return running.apiUrl;
}

async function control<T>(apiUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${apiUrl}/__control${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    signal: AbortSignal.timeout(10_000),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`the TikTok emulator answered ${response.status} to ${method} ${path}`);
  return (await response.json()) as T;
}

/** A span in days, hours and minutes: `1d 2h`, `3h 5m`, `0m`. */
function describe(ms: number): string {
  const minutes = Math.floor(ms / UNIT_MS.m!);
  const parts = [
    [Math.floor(minutes / 1440), 'd'],
    [Math.floor((minutes % 1440) / 60), 'h'],
    [minutes % 60, 'm'],
  ].filter(([n]) => Number(n) > 0);
  return parts.length === 0 ? '0m' : parts.map(([n, unit]) => `${n}${unit}`).join(' ');
}
