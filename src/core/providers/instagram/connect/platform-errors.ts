import type { PlatformDoc } from '../../../platforms/documents.js';
import { AppError } from '../../../errors.js';

/** The account's token has ended (expired, revoked, password changed): a person must log in again. */
export function reconnectNeeded(platform: Pick<PlatformDoc, 'displayName' | 'displayHandle'>): AppError {
  return new AppError(
    'conflict',
    `Reconnect this Instagram account (${accountLabel(platform)}): its authorization has ended. ` +
      'Open the accounts page (/platforms) in the Postdeck web app and choose Connect Instagram.',
  );
}

/** The account was disconnected on purpose; it has no token until someone connects it again. */
export function platformDisconnected(platform: Pick<PlatformDoc, 'displayName' | 'displayHandle'>): AppError {
  return new AppError(
    'conflict',
    `This Instagram account (${accountLabel(platform)}) is disconnected. Connect it again on /platforms in the Postdeck web app to use it.`,
  );
}

function accountLabel(platform: Pick<PlatformDoc, 'displayName' | 'displayHandle'>): string {
  if (platform.displayHandle) return `@${platform.displayHandle}`;
  return platform.displayName ?? 'unnamed account';
}
