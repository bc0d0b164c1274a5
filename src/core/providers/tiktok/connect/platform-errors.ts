import type { PlatformDoc } from '../../../platforms/documents.js';
import { AppError } from '../../../errors.js';

/** The account's authorization is gone (refresh token expired, rotated away or revoked): a person must reconnect. */
export function reconnectNeeded(platform: Pick<PlatformDoc, 'displayName' | 'displayHandle'>): AppError {
  return new AppError(
    'conflict',
    `Reconnect this TikTok account (${accountLabel(platform)}): its authorization has ended. ` +
      'Open TikTok accounts (/platforms) in the Postdeck web app and choose Reconnect.',
  );
}

/** The account was disconnected on purpose; it has no tokens until someone connects it again. */
export function platformDisconnected(platform: Pick<PlatformDoc, 'displayName' | 'displayHandle'>): AppError {
  return new AppError(
    'conflict',
    `This TikTok account (${accountLabel(platform)}) is disconnected. Connect it again on /platforms in the Postdeck web app to use it.`,
  );
}

/** Refuses an account that cannot post through Postdeck at all (409 conflict, with what to do). */
export function requirePostingPlatform(platform: PlatformDoc): void {
  if (platform.disabled) throw platformDisconnected(platform);
  if (platform.refreshNeeded) throw reconnectNeeded(platform);
  if (!platform.capabilities.includes('video')) {
    throw new AppError(
      'conflict',
      'This TikTok account did not allow posting (video.publish) when it was connected. Reconnect it on /platforms and allow every permission.',
    );
  }
}

function accountLabel(platform: Pick<PlatformDoc, 'displayName' | 'displayHandle'>): string {
  if (platform.displayHandle) return `@${platform.displayHandle}`;
  return platform.displayName ?? 'unnamed account';
}
