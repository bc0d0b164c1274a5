/** A time as a person reads it off a clock in some time zone. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const DAY_MS = 24 * 60 * 60_000;

/** The zone's canonical IANA name ("europe/berlin" → "Europe/Berlin"), or null when Intl does not know it. */
export function canonicalTimeZone(zone: string): string | null {
  if (!zone.trim()) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone.trim() }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Reads "YYYY-MM-DD HH:MM" (a "T" may separate them); null when it is not a real date and time. */
export function parseWallClock(text: string): WallClock | null {
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:\s+|T)(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!match) return null;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  if (year < 1970 || hour > 23 || minute > 59) return null;
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return { year, month, day, hour, minute };
}

/**
 * The instant a wall-clock time names in `zone`. Daylight saving time is settled the way
 * Temporal's "compatible" option does: a time skipped by the spring jump is read with the offset
 * from before it (02:30 on that night in Berlin is 03:30 summer time), and a time that happens
 * twice in autumn is the first of the two.
 */
export function wallClockToUtc(clock: WallClock, zone: string): Date {
  const asUtc = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute);
  const before = offsetAt(zone, asUtc - DAY_MS);
  const offsets = new Set([before, offsetAt(zone, asUtc), offsetAt(zone, asUtc + DAY_MS)]);
  const matching = [...offsets]
    .map((offset) => asUtc - offset)
    .filter((instant) => sameClock(wallClockAt(instant, zone), clock))
    .sort((a, b) => a - b);
  return new Date(matching[0] ?? asUtc - before);
}

/** What a clock in `zone` shows at `instant`. */
export function wallClockAt(instant: number, zone: string): WallClock {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(new Date(instant));
  const field = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((part) => part.type === type)?.value);
  return {
    year: field('year'),
    month: field('month'),
    day: field('day'),
    hour: field('hour'),
    minute: field('minute'),
  };
}

/** "YYYY-MM-DD HH:MM", the way the Schedule form asks for it. */
export function formatWallClock(clock: WallClock): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return `${clock.year}-${two(clock.month)}-${two(clock.day)} ${two(clock.hour)}:${two(clock.minute)}`;
}

/** How far ahead of UTC the zone's clocks are at `instant`, in milliseconds (whole minutes). */
function offsetAt(zone: string, instant: number): number {
  const minute = Math.floor(instant / 60_000) * 60_000;
  const clock = wallClockAt(minute, zone);
  return Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute) - minute;
}

function sameClock(a: WallClock, b: WallClock): boolean {
  return a.year === b.year && a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute;
}
