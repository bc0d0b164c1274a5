import type { CoreDeps } from '../context.js';
import { mintApiKey } from '../auth/api-keys.js';
import { addressKey, assertUnderRateLimits, countAgainstRateLimits, type RateLimit } from '../auth/rate-limit.js';
import { claimLease } from '../db/leases.js';
import { AppError } from '../errors.js';
import type { DeviceCodeDoc, DeviceDecisionDoc } from './documents.js';
import { hashSecret, hasSecretTokenShape } from '../identity/tokens.js';
import { findDecision } from './decision.js';
import { DeviceFlowError } from './errors.js';

/** RFC 8628 section 3.5: each slow_down adds 5 seconds to the interval, for good. */
export const SLOW_DOWN_STEP_S = 5;
/** A poll up to this early is still on time: client and server clocks and networks jitter. */
export const POLL_JITTER_MS = 1_000;
/** The key's name when the client did not say what it is. */
export const DEFAULT_DEVICE_KEY_NAME = 'Device login';

/**
 * The device's poll (RFC 8628 section 3.4). Answers `{ status: 'approved', api_key }` exactly
 * once, minting the key at that moment; otherwise throws a DeviceFlowError: `slow_down` for
 * a poll sooner than the interval (which then grows by 5 s), `authorization_pending`,
 * `access_denied` after a denial, and `expired_token` for an expired, locked, already
 * redeemed or unknown code (the spec lists no other value; see docs/decisions.md).
 */
export async function pollDeviceToken(
  deps: CoreDeps,
  input: {
    deviceCode: string;
    /** The client's address; when given, wrong codes are limited per address. */ address?: string;
  },
): Promise<{ status: 'approved'; api_key: string }> {
  const limits = input.address === undefined ? [] : [wrongCodeLimit(input.address)];
  await throttled(() => assertUnderRateLimits(deps, limits));
  const doc = hasSecretTokenShape(input.deviceCode, '')
    ? await deps.db.deviceCodes.findOne({ deviceCodeHash: hashSecret(input.deviceCode) })
    : null;
  const now = deps.now();
  if (!doc) {
    await throttled(() => countAgainstRateLimits(deps, limits, 'wrong-code'));
    throw new DeviceFlowError('expired_token', UNKNOWN_OR_EXPIRED);
  }
  if (doc.expiresAt <= now) throw new DeviceFlowError('expired_token', UNKNOWN_OR_EXPIRED);
  const decision = await findDecision(deps, doc._id);
  if (decision?.outcome === 'denied') {
    throw new DeviceFlowError('access_denied', 'The person denied this login. Start a new one to try again.');
  }
  if (decision?.outcome === 'locked') {
    throw new DeviceFlowError(
      'expired_token',
      'Too many wrong user codes were tried for this login, so it was closed. Start a new login.',
    );
  }
  if (decision?.redeemedAt) throw new DeviceFlowError('expired_token', ALREADY_REDEEMED);

  // The interval is measured from the previous poll, whatever it was answered, so a client
  // that keeps polling too fast keeps being slowed down until it honours the grown interval.
  // Concurrent polls all read the same previous poll; the lease of this interval lets one through.
  const sincePrevious = doc.lastPolledAt === null ? Infinity : now.getTime() - doc.lastPolledAt.getTime();
  const onTime =
    sincePrevious >= doc.interval * 1000 - POLL_JITTER_MS &&
    (await claimLease(deps.db, pollLeaseKey(doc._id), { ttlMs: doc.interval * 1000 - POLL_JITTER_MS, now }));
  if (!onTime) {
    const interval = doc.interval + SLOW_DOWN_STEP_S;
    await deps.db.deviceCodes.updateOne({ _id: doc._id }, { $set: { lastPolledAt: now, interval } });
    throw new DeviceFlowError(
      'slow_down',
      `Polled sooner than the interval. Wait ${interval} seconds between polls from now on.`,
    );
  }
  await deps.db.deviceCodes.updateOne({ _id: doc._id }, { $set: { lastPolledAt: now } });
  if (!decision) {
    throw new DeviceFlowError(
      'authorization_pending',
      `The person has not approved this login yet. Poll again in ${doc.interval} seconds.`,
    );
  }
  return redeem(deps, doc, decision, now);
}

const UNKNOWN_OR_EXPIRED = 'This device code is unknown or has expired. Start a new login.';
const ALREADY_REDEEMED = 'The key for this login was already issued, and is issued only once. Start a new login.';

/** The lease each on-time poll claims for one interval (deleted with the code by the purge). */
export function pollLeaseKey(deviceCodeId: string): string {
  return `device:poll:${deviceCodeId}`;
}

/** Wrong device codes one address may send per 15 minutes before it is slowed down. */
export const WRONG_CODES_PER_ADDRESS_PER_WINDOW = 30;

function wrongCodeLimit(address: string): RateLimit {
  return {
    pool: `ratelimit:device-token-miss:addr:${addressKey(address)}`,
    limit: WRONG_CODES_PER_ADDRESS_PER_WINDOW,
    windowMs: 15 * 60_000,
  };
}

/** A guessing address is told `slow_down` (with Retry-After), the answer RFC 8628 clients back off on. */
async function throttled(check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'rate_limited') throw error;
    const wait = error.retryAfterSeconds ?? 60;
    throw new DeviceFlowError(
      'slow_down',
      `Too many unknown device codes from this address. Wait ${wait} seconds before polling again.`,
      wait,
    );
  }
}

/** The lease whose single claim redeems a device code (deleted with the code by the purge). */
export function redeemLeaseKey(deviceCodeId: string): string {
  return `device:redeem:${deviceCodeId}`;
}

/**
 * Mints the key for an approved code, once. Concurrent polls may all see the approval; the
 * one that claims the lease `device:redeem:<id>` (a single unique insert, atomic on MongoDB
 * and on the emulator alike) mints, the others are told the code is spent.
 */
async function redeem(
  deps: CoreDeps,
  doc: DeviceCodeDoc,
  decision: DeviceDecisionDoc,
  now: Date,
): Promise<{ status: 'approved'; api_key: string }> {
  if (!(await claimLease(deps.db, redeemLeaseKey(doc._id), { now }))) {
    throw new DeviceFlowError('expired_token', ALREADY_REDEEMED);
  }
  if (decision.workspaceId === null || decision.accountId === null) {
    throw new Error(`Approved device authorization ${doc._id} has no workspace`);
  }
  const { apiKey, view } = await mintApiKey(deps, {
    workspaceId: decision.workspaceId,
    accountId: decision.accountId,
    userId: decision.decidedBy,
    name: doc.clientName ?? DEFAULT_DEVICE_KEY_NAME,
    // The member approved it on the /device page; the poll only collects it.
    surface: 'web',
  });
  // Only the lease winner ever writes here, so this update races with nothing.
  await deps.db.deviceDecisions.updateOne({ _id: doc._id }, { $set: { redeemedAt: now, apiKeyId: view.id } });
  deps.logger.info(
    { deviceId: doc._id, keyId: view.id, workspaceId: decision.workspaceId },
    'device code redeemed for an API key',
  );
  return { status: 'approved', api_key: apiKey };
}
