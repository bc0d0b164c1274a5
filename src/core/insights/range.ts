import { checkedRange, DAY_MS } from '../date-range.js';

const DEFAULT_DAYS = 30;

/** [start, end) of an analytics read: end defaults to now, start to 30 days before end; at most 93 days. */
export function analyticsRange(input: { startDate?: string | undefined; endDate?: string | undefined }, now: Date) {
  const end = input.endDate === undefined ? now : new Date(input.endDate);
  const start =
    input.startDate === undefined ? new Date(end.getTime() - DEFAULT_DAYS * DAY_MS) : new Date(input.startDate);
  return checkedRange(start, end);
}
