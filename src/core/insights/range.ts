import { AppError } from '../errors.js';

const DAY_MS = 86_400_000;
/** The widest range one analytics read covers, as for listing posts: a quarter. */
export const MAX_RANGE_DAYS = 93;
const DEFAULT_DAYS = 30;

/** [start, end) of an analytics read: end defaults to now, start to 30 days before end; at most 93 days. */
export function analyticsRange(input: { startDate?: string | undefined; endDate?: string | undefined }, now: Date) {
  const end = input.endDate === undefined ? now : new Date(input.endDate);
  const start =
    input.startDate === undefined ? new Date(end.getTime() - DEFAULT_DAYS * DAY_MS) : new Date(input.startDate);
  if (end.getTime() <= start.getTime()) throw rangeError('endDate must be after startDate');
  if (end.getTime() - start.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    throw rangeError(`the range may span at most ${MAX_RANGE_DAYS} days`);
  }
  return { start, end };
}

function rangeError(message: string): AppError {
  return new AppError('invalid_request', `The date range is not valid: ${message}`, [{ path: ['endDate'], message }]);
}
