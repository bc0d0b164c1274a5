import { describe, expect, it } from 'vitest';
import {
  FIRST_SNAPSHOT_AFTER_MS,
  FIRST_SNAPSHOT_WITHIN_MS,
  LAST_SLOT,
  nextAfter,
  SNAPSHOT_AGES_MS,
  slotAt,
  slotDueAt,
} from '../../src/core/insights/schedule.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const published = new Date('2026-01-10T12:00:00.000Z');
const at = (ms: number) => new Date(published.getTime() + ms);

describe('the snapshot schedule', () => {
  it('takes the first snapshot 3 minutes on, hourly for 48 hours, every 6 hours to day 7, daily to day 30, then stops', () => {
    // Not at once: a post a second old has no views, so a snapshot then only ever said 0.
    expect(FIRST_SNAPSHOT_AFTER_MS).toBe(3 * 60_000);
    expect(slotDueAt(published, 0)).toEqual(at(FIRST_SNAPSHOT_AFTER_MS));
    expect(FIRST_SNAPSHOT_WITHIN_MS).toBe(5 * 60_000);
    expect(FIRST_SNAPSHOT_AFTER_MS).toBeLessThan(FIRST_SNAPSHOT_WITHIN_MS - 60_000);
    // After slot 0, every gap is an hour, 6 hours or a day (slot 1 stays at one hour of age).
    const gaps = SNAPSHOT_AGES_MS.slice(2).map((age, i) => age - (SNAPSHOT_AGES_MS[i + 1] as number));
    const hourly = SNAPSHOT_AGES_MS.filter((age) => age > FIRST_SNAPSHOT_AFTER_MS && age <= 48 * HOUR);
    const sixHourly = SNAPSHOT_AGES_MS.filter((age) => age > 48 * HOUR && age <= 7 * DAY);
    const daily = SNAPSHOT_AGES_MS.filter((age) => age > 7 * DAY);
    expect(hourly).toEqual(Array.from({ length: 48 }, (_, i) => (i + 1) * HOUR));
    expect(sixHourly).toEqual(Array.from({ length: 20 }, (_, i) => 48 * HOUR + (i + 1) * 6 * HOUR));
    expect(daily).toEqual(Array.from({ length: 23 }, (_, i) => (8 + i) * DAY));
    expect(gaps.every((gap) => gap === HOUR || gap === 6 * HOUR || gap === DAY)).toBe(true);
    expect(LAST_SLOT).toBe(1 + 48 + 20 + 23 - 1);
    expect(slotDueAt(published, LAST_SLOT)).toEqual(at(30 * DAY));
    expect(nextAfter(published, LAST_SLOT)).toBeNull();
    expect(nextAfter(published, 0)).toEqual({ slot: 1, dueAt: at(HOUR) });
    expect(nextAfter(published, 48)).toEqual({ slot: 49, dueAt: at(54 * HOUR) });
    // The milestones' slots keep their ages: 24 hours and 7 days.
    expect(slotDueAt(published, 24)).toEqual(at(24 * HOUR));
    expect(slotDueAt(published, 68)).toEqual(at(7 * DAY));
  });

  it('puts a snapshot in the latest slot already due when it was taken', () => {
    expect(slotAt(published, at(-1000))).toBe(0);
    expect(slotAt(published, at(4 * 60_000))).toBe(0);
    expect(slotAt(published, at(HOUR - 1))).toBe(0);
    expect(slotAt(published, at(HOUR))).toBe(1);
    expect(slotAt(published, at(3.5 * HOUR))).toBe(3);
    expect(slotAt(published, at(48 * HOUR))).toBe(48);
    expect(slotAt(published, at(53 * HOUR))).toBe(48);
    expect(slotAt(published, at(54 * HOUR))).toBe(49);
    expect(slotAt(published, at(7 * DAY + 23 * HOUR))).toBe(68);
    expect(slotAt(published, at(8 * DAY))).toBe(69);
    expect(slotAt(published, at(30 * DAY))).toBe(LAST_SLOT);
    expect(slotAt(published, at(400 * DAY))).toBe(LAST_SLOT);
  });
});
