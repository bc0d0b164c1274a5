import { describe, expect, it } from 'vitest';
import { scheduleTimeFrom } from '../../src/bots/discord/modals.js';
import {
  canonicalTimeZone,
  formatWallClock,
  parseWallClock,
  wallClockAt,
  wallClockToUtc,
} from '../../src/bots/discord/wall-clock.js';

const at = (text: string, zone: string) => wallClockToUtc(parseWallClock(text)!, zone).toISOString();

describe('wall-clock times in a time zone', () => {
  it('reads an ordinary time with the offset of its date (winter and summer)', () => {
    expect(at('2026-01-15 10:30', 'Europe/Berlin')).toBe('2026-01-15T09:30:00.000Z');
    expect(at('2026-07-15 10:30', 'Europe/Berlin')).toBe('2026-07-15T08:30:00.000Z');
    expect(at('2026-07-15 10:30', 'America/New_York')).toBe('2026-07-15T14:30:00.000Z');
    expect(at('2026-07-15 10:30', 'Asia/Kolkata')).toBe('2026-07-15T05:00:00.000Z');
    expect(at('2026-07-15 10:30', 'UTC')).toBe('2026-07-15T10:30:00.000Z');
  });

  it('moves a time skipped by the spring jump forward by the jump', () => {
    // Berlin: 2026-03-29 02:00 CET becomes 03:00 CEST; 02:30 is read as 01:30 UTC (03:30 summer time).
    expect(at('2026-03-29 02:30', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z');
    expect(formatWallClock(wallClockAt(Date.parse('2026-03-29T01:30:00Z'), 'Europe/Berlin'))).toBe('2026-03-29 03:30');
    // New York: 2026-03-08 02:00 EST becomes 03:00 EDT.
    expect(at('2026-03-08 02:15', 'America/New_York')).toBe('2026-03-08T07:15:00.000Z');
  });

  it('takes the first of a time that happens twice in autumn', () => {
    // Berlin: 2026-10-25 03:00 CEST goes back to 02:00 CET, so 02:30 happens at 00:30 and 01:30 UTC.
    expect(at('2026-10-25 02:30', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
    expect(at('2026-10-25 03:00', 'Europe/Berlin')).toBe('2026-10-25T02:00:00.000Z');
    expect(at('2026-11-01 01:30', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
  });

  it('knows IANA zones by their canonical names and refuses the rest', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone(' America/New_York ')).toBe('America/New_York');
    expect(canonicalTimeZone('Mars/Olympus_Mons')).toBeNull();
    expect(canonicalTimeZone('')).toBeNull();
  });

  it('reads only real dates and times', () => {
    expect(parseWallClock('2026-02-30 10:00')).toBeNull();
    expect(parseWallClock('2026-12-01 24:00')).toBeNull();
    expect(parseWallClock('2026-12-01 10:60')).toBeNull();
    expect(parseWallClock('next tuesday')).toBeNull();
    expect(parseWallClock('2026-12-01T09:05')).toEqual({ year: 2026, month: 12, day: 1, hour: 9, minute: 5 });
  });
});

describe('the Schedule form time', () => {
  const now = new Date('2026-06-01T12:00:00Z');

  it('is the typed time in the link zone when it lies ahead', () => {
    expect(scheduleTimeFrom('2026-06-01 15:00', 'Europe/Berlin', now)).toEqual({
      at: new Date('2026-06-01T13:00:00Z'),
    });
  });

  it('explains an unreadable or past time', () => {
    const unreadable = scheduleTimeFrom('soon', 'Europe/Berlin', now);
    expect(unreadable).toEqual({ problem: expect.stringMatching(/YYYY-MM-DD HH:MM, e\.g\. 2026-06-01 15:00/) });
    const past = scheduleTimeFrom('2026-06-01 13:59', 'Europe/Berlin', now);
    expect(past).toEqual({ problem: expect.stringMatching(/already passed/) });
  });
});
