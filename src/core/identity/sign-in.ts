import type { CoreDeps } from '../context.js';
import { addressKey, assertUnderRateLimits, countAgainstRateLimits, type RateLimit } from '../auth/rate-limit.js';
import { AppError } from '../errors.js';
import { verifyPassword } from './passwords.js';
import { normalizeEmail } from './schema.js';
import { createSession } from './sessions.js';
import { findUserByEmail, toUserView, type UserView } from './users.js';

const LOGIN_WINDOW_MS = 15 * 60_000;
/** Failed sign-ins allowed per email per window: enough for typos, far too few for guessing. */
export const LOGIN_FAILURES_PER_ACCOUNT = 10;
/** Failed sign-ins allowed per client address per window; higher, as offices share an address. */
export const LOGIN_FAILURES_PER_ADDRESS = 30;

/** A signed-in session as sign-in hands it out. */
export interface SignInResult {
  token: string;
  expiresAt: Date;
  user: UserView;
}

/**
 * Checks email and password and starts a session. Failed attempts count against the email
 * and the client address (fixed 15-minute windows); once either is used up, every attempt,
 * right or wrong, is answered `rate_limited` until the window ends, so a throttled guesser
 * learns nothing. Unknown emails and wrong passwords get the same answer in the same time.
 */
export async function signIn(
  deps: CoreDeps,
  input: { email: string; password: string; address: string },
): Promise<SignInResult> {
  const email = normalizeEmail(input.email);
  const limits = loginLimits(email, input.address);
  await assertUnderRateLimits(deps, limits);

  const user = await findUserByEmail(deps, email);
  const valid = await verifyPassword(user?.passwordHash ?? null, input.password);
  if (!user || !valid) {
    await countAgainstRateLimits(deps, limits, 'sign-in');
    throw new AppError('invalid_credentials', 'The email or password is not correct');
  }
  const session = await createSession(deps, user._id);
  deps.logger.info({ userId: user._id, sessionId: session.sessionId }, 'user signed in');
  return { token: session.token, expiresAt: session.expiresAt, user: toUserView(user) };
}

function loginLimits(email: string, address: string): RateLimit[] {
  return [
    { pool: `ratelimit:login:account:${email}`, limit: LOGIN_FAILURES_PER_ACCOUNT, windowMs: LOGIN_WINDOW_MS },
    { pool: `ratelimit:login:ip:${addressKey(address)}`, limit: LOGIN_FAILURES_PER_ADDRESS, windowMs: LOGIN_WINDOW_MS },
  ];
}
