import { AppError } from './errors.js';

export const DAY_MS = 86_400_000;
/** The widest range one listing or analytics read covers: a quarter, enough for a calendar view. */
export const MAX_RANGE_DAYS = 93;
/** How a range's endDate states its rule, in words a client (and the schema fuzzer) reads. */
export const END_DATE_RULE = `after startDate and at most ${MAX_RANGE_DAYS} days after it`;

/** [start, end) when end is after start by at most MAX_RANGE_DAYS; else invalid_request on endDate. */
export function checkedRange(start: Date, end: Date): { start: Date; end: Date } {
  if (end.getTime() <= start.getTime()) throw rangeError('endDate must be after startDate');
  if (end.getTime() - start.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    throw rangeError(`the range may span at most ${MAX_RANGE_DAYS} days`);
  }
  return { start, end };
}

function rangeError(message: string): AppError {
  return new AppError('invalid_request', `The date range is not valid: ${message}`, [{ path: ['endDate'], message }]);
}
