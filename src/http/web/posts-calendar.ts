const DAY_MS = 86_400_000;
const DAY_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

export type CalendarMode = 'week' | 'day';

/** The stretch of days one calendar page shows, in UTC. */
export interface Calendar {
  mode: CalendarMode;
  /** The day asked for (YYYY-MM-DD): every link and form of the page keeps it. */
  date: string;
  /** The first day shown and the day after the last: the range listed. */
  start: Date;
  end: Date;
  /** The days shown, YYYY-MM-DD, in order. */
  days: string[];
  previous: string;
  next: string;
  today: string;
}

/**
 * The calendar a request asks for: `view` week (the default) or day, around `date` (today by
 * default). Days are UTC days and weeks run Monday to Sunday; a value that is not a real date or
 * view is ignored rather than refused, like a stale bookmark.
 */
export function calendarOf(view: unknown, date: unknown, now: Date): Calendar {
  const mode: CalendarMode = view === 'day' ? 'day' : 'week';
  const today = dayKey(now);
  const anchor = typeof date === 'string' && isDay(date) ? date : today;
  const anchorStart = startOfDay(anchor);
  const monday = addDays(anchorStart, -((anchorStart.getUTCDay() + 6) % 7));
  const start = mode === 'day' ? anchorStart : monday;
  const length = mode === 'day' ? 1 : 7;
  const step = length;
  return {
    mode,
    date: anchor,
    start,
    end: addDays(start, length),
    days: Array.from({ length }, (_, i) => dayKey(addDays(start, i))),
    previous: dayKey(addDays(anchorStart, -step)),
    next: dayKey(addDays(anchorStart, step)),
    today,
  };
}

/** The UTC day of an instant, YYYY-MM-DD. */
export function dayKey(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The calendar page's address; every part is a checked value, never request text. */
export function calendarHref(workspaceId: string, mode: CalendarMode, date: string, notice?: string): string {
  return `/posts?ws=${workspaceId}&view=${mode}&date=${date}${notice ? `&notice=${notice}` : ''}`;
}

function isDay(value: string): boolean {
  if (!DAY_SHAPE.test(value)) return false;
  const at = startOfDay(value);
  // 2025-02-30 parses to nothing or to another day; only a round trip proves a real date.
  return !Number.isNaN(at.getTime()) && dayKey(at) === value;
}

function startOfDay(day: string): Date {
  return new Date(`${day}T00:00:00.000Z`);
}

function addDays(at: Date, days: number): Date {
  return new Date(at.getTime() + days * DAY_MS);
}
