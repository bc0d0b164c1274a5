// What Instagram's answers to insights reads mean for the collection (contract 3.3 and 4): a throttle backs the
// account off, a refused permission stops that part until a reconnect, anything else fails the run (backoff).

import { AppError } from '../../../errors.js';
import { ScopeNotGranted } from '../../port.js';
import { INSIGHTS_SCOPE } from '../connect/analytics-access.js';
import { GraphError, GraphTransportError } from '../graph-errors.js';

/** App, user, page, custom and business-use-case limits (contract 3.3). */
const THROTTLE_CODES = new Set([4, 17, 32, 613]);
/** The spam block shares code 4 but is no rate limit. */
const SPAM_BLOCK_SUBCODE = 2207051;

/** Code 10 also says "(#10) Not enough viewers for the media to show insights": numbers that may come later. */
export function isNotEnoughViewers(error: unknown): boolean {
  return error instanceof GraphError && error.code === 10 && /not enough viewers/i.test(error.message);
}

/** "Unsupported get request" (100/33): the media is gone, or not this account's; the post is left out. */
export function isMediaGone(error: unknown): boolean {
  return error instanceof GraphError && error.code === 100 && error.subcode === 33;
}

/** The error the collection understands for a failed Instagram read; AppErrors (reconnect) pass as they are. */
export function collectionErrorOf(error: unknown): unknown {
  if (error instanceof GraphTransportError) {
    return new AppError('provider_error', `Instagram did not answer an insights read: ${error.message}`);
  }
  if (!(error instanceof GraphError)) return error;
  if (error.code === 10 || (error.code >= 200 && error.code <= 299))
    return new ScopeNotGranted(INSIGHTS_SCOPE, 'Instagram');
  const throttled =
    (THROTTLE_CODES.has(error.code) && error.subcode !== SPAM_BLOCK_SUBCODE) ||
    (error.code >= 80001 && error.code <= 80014);
  if (throttled) {
    const retryAfterSeconds = error.retryAfterMs === null ? undefined : Math.ceil(error.retryAfterMs / 1000);
    return new AppError(
      'rate_limited',
      `Instagram limited insights reads (${error.detail})`,
      undefined,
      retryAfterSeconds,
    );
  }
  return new AppError('provider_error', `Instagram failed an insights read (${error.detail})`);
}
