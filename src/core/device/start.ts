import { randomUUID } from 'node:crypto';
import type { CoreDeps } from '../context.js';
import type { DeviceCodeDoc, DeviceLoginOrigin } from './documents.js';
import { addressKey, countAgainstRateLimits } from '../auth/rate-limit.js';
import { isDuplicateKeyError } from '../errors.js';
import { hashSecret, newSecretToken } from '../identity/tokens.js';
import { DEFAULT_USER_CODE_PREFIX, formatUserCode, generateUserCode } from './user-code.js';

export const DEFAULT_POLL_INTERVAL_S = 5;
export const DEFAULT_EXPIRES_IN_S = 900;
/** Device logins one address may start per 15 minutes: plenty for people, a wall for floods. */
export const STARTS_PER_ADDRESS_PER_WINDOW = 60;
// With ~2.6e10 codes a collision among live ones is rare; a few retries make failure negligible.
const MAX_CODE_ATTEMPTS = 8;

/** What a device learns when it starts (spec 4, RFC 8628 section 3.2); names as on the wire. */
export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  interval: number;
  expires_in: number;
}

/**
 * Starts a device authorization: a device code (256 random bits, stored only as its hash)
 * for the device to poll with, and a short user code for the person to type, unique among
 * live codes (decided by inserting it as an `_id` in `device_user_codes`).
 */
export async function startDeviceAuthorization(
  deps: CoreDeps,
  input: {
    clientName?: string | null | undefined;
    /** Where the login was started; `device` unless a chat bot starts it. */
    origin?: DeviceLoginOrigin | undefined;
    publicUrl: string;
    prefix?: string | undefined;
    interval?: number | undefined;
    expiresIn?: number | undefined;
    /** The client's address; when given, starts are limited per address. */
    address?: string | undefined;
  },
): Promise<DeviceAuthorization> {
  if (input.address !== undefined) {
    const pool = `ratelimit:device-start:addr:${addressKey(input.address)}`;
    await countAgainstRateLimits(
      deps,
      [{ pool, limit: STARTS_PER_ADDRESS_PER_WINDOW, windowMs: 15 * 60_000 }],
      'start',
    );
  }
  const prefix = input.prefix ?? DEFAULT_USER_CODE_PREFIX;
  const interval = input.interval ?? DEFAULT_POLL_INTERVAL_S;
  const expiresIn = input.expiresIn ?? DEFAULT_EXPIRES_IN_S;
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + expiresIn * 1000);
  const deviceId = randomUUID();
  const deviceCode = newSecretToken('');
  const userCode = await reserveUserCode(deps, deviceId, expiresAt);

  const doc: DeviceCodeDoc = {
    _id: deviceId,
    deviceCodeHash: hashSecret(deviceCode),
    userCode,
    prefix,
    clientName: input.clientName ?? null,
    origin: input.origin ?? 'device',
    interval,
    lastPolledAt: null,
    createdAt: now,
    expiresAt,
  };
  await deps.db.deviceCodes.insertOne(doc);

  const shown = formatUserCode(prefix, userCode);
  const verificationUri = `${input.publicUrl.replace(/\/+$/, '')}/device`;
  return {
    device_code: deviceCode,
    user_code: shown,
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?code=${encodeURIComponent(shown)}`,
    interval,
    expires_in: expiresIn,
  };
}

/** Picks a code no live authorization holds; an expired holder's reservation is taken over. */
async function reserveUserCode(deps: CoreDeps, deviceId: string, expiresAt: Date): Promise<string> {
  for (let attempt = 0; attempt < MAX_CODE_ATTEMPTS; attempt++) {
    const code = generateUserCode();
    for (let takeover = 0; takeover < 2; takeover++) {
      try {
        await deps.db.deviceUserCodes.insertOne({ _id: code, deviceId, expiresAt });
        return code;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      // Held: free it only if its holder has expired, then race for it again with one insert.
      const freed = await deps.db.deviceUserCodes.deleteOne({ _id: code, expiresAt: { $lte: deps.now() } });
      if (freed.deletedCount === 0) break;
    }
  }
  throw new Error('Could not find a free user code');
}
