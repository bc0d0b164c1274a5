import { z } from 'zod';
import { AppError } from '../../../errors.js';
import type { InstagramHttp } from '../graph.js';
import { parse } from '../oauth.js';

/** An Instagram account as Postdeck stores it, read right after login (contract 1.5). */
export interface InstagramProfile {
  /** The professional account id Graph paths take (`/me`'s `user_id`). */
  userId: string;
  username: string;
  name: string | null;
  accountType: string;
  pictureUrl: string | null;
}

const ProfileSchema = z.object({
  id: z.string().optional(),
  user_id: z.union([z.string(), z.number()]).transform(String),
  username: z.string().min(1),
  name: z.string().optional(),
  account_type: z.string().optional(),
  profile_picture_url: z.string().optional(),
});

/** Account types that may publish through the API (Business and Creator accounts). */
const PROFESSIONAL = new Set(['BUSINESS', 'MEDIA_CREATOR']);

/**
 * Reads the logged-in account's profile and refuses a personal account: the API publishes only for professional
 * accounts, and the fix is the person's own (switching is free and keeps the account).
 */
export async function readInstagramProfile(http: InstagramHttp, accessToken: string): Promise<InstagramProfile> {
  const fields = 'user_id,username,name,account_type,profile_picture_url';
  const me = parse(ProfileSchema, await http.get<unknown>('/me', { fields }, accessToken), '/me');
  const accountType = me.account_type ?? 'UNKNOWN';
  if (!PROFESSIONAL.has(accountType)) {
    throw new AppError(
      'invalid_request',
      `@${me.username} is a personal Instagram account, and Instagram lets apps publish only for professional ` +
        'accounts. In the Instagram app open Settings, then "Account type and tools", choose "Switch to professional ' +
        'account" (Creator or Business; free, and your posts and followers stay), then connect it here again.',
    );
  }
  return {
    userId: me.user_id,
    username: me.username,
    name: me.name ?? null,
    accountType,
    pictureUrl: me.profile_picture_url ?? null,
  };
}
