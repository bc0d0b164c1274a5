// When a published post's snapshots are taken: a pure schedule, from the words.

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * The first snapshot falls due this long after PUBLISHED: a post a second old has no views yet, so a snapshot
 * then would only say 0. Short enough that a trial sees numbers within five minutes (README, Analytics).
 */
export const FIRST_SNAPSHOT_AFTER_MS = 3 * MINUTE_MS;
/** The planner looks every minute, so the first snapshot is taken within this of PUBLISHED. */
export const FIRST_SNAPSHOT_WITHIN_MS = 5 * MINUTE_MS;
/** The age hooks are ranked at: every post is compared by its views at 48 hours. */
export const RANKING_AGE_MS = 48 * HOUR_MS;

/**
 * Each slot's age (time after PUBLISHED): slot 0 after FIRST_SNAPSHOT_AFTER_MS, then hourly for the first 48 hours, every 6
 * hours to day 7, daily to day 30; the snapshot of the last slot makes the post final.
 */
export const SNAPSHOT_AGES_MS: readonly number[] = Object.freeze([
  FIRST_SNAPSHOT_AFTER_MS,
  ...steps(HOUR_MS, 48 * HOUR_MS, HOUR_MS),
  ...steps(54 * HOUR_MS, 7 * DAY_MS, 6 * HOUR_MS),
  ...steps(8 * DAY_MS, 30 * DAY_MS, DAY_MS),
]);

/** The last slot: once it is recorded the post's collection is final. */
export const LAST_SLOT = SNAPSHOT_AGES_MS.length - 1;

/** When `slot` falls due for a post published at `publishedAt`. */
export function slotDueAt(publishedAt: Date, slot: number): Date {
  const age = SNAPSHOT_AGES_MS[Math.min(Math.max(slot, 0), LAST_SLOT)] as number;
  return new Date(publishedAt.getTime() + age);
}

/**
 * The slot a snapshot taken at `takenAt` fills: the latest one already due then. A late collector
 * fills the current slot and skips those it missed (old numbers are never invented); two snapshots in
 * the same interval fill the same slot, so the second is a duplicate and stored once.
 */
export function slotAt(publishedAt: Date, takenAt: Date): number {
  const age = takenAt.getTime() - publishedAt.getTime();
  let slot = 0;
  while (slot < LAST_SLOT && (SNAPSHOT_AGES_MS[slot + 1] as number) <= age) slot += 1;
  return slot;
}

/** What follows a snapshot of `slot`: the next slot and when it is due, or null when collection is final. */
export function nextAfter(publishedAt: Date, slot: number): { slot: number; dueAt: Date } | null {
  if (slot >= LAST_SLOT) return null;
  return { slot: slot + 1, dueAt: slotDueAt(publishedAt, slot + 1) };
}

function steps(from: number, to: number, every: number): number[] {
  const ages: number[] = [];
  for (let age = from; age <= to; age += every) ages.push(age);
  return ages;
}
