import type { CoreDeps } from '../context.js';
import type { DomainEvent } from '../events/documents.js';
import { domainEvent } from '../events/relay.js';
import type { PostCountsDoc, PostInsightDoc, PostSnapshotDoc } from './documents.js';

const HOUR_MS = 3_600_000;

/** The ages at which a published post's counts are told to its chat cards, each once. */
export const MILESTONES = [
  { type: 'post.metrics_24h', ageMs: 24 * HOUR_MS, label: '24 hours' },
  { type: 'post.metrics_7d', ageMs: 7 * 24 * HOUR_MS, label: '7 days' },
] as const;

export type Milestone = (typeof MILESTONES)[number];
export type MilestoneType = Milestone['type'];

/**
 * The milestone a snapshot taken at `latest.takenAt` reaches: the newest age it is the first snapshot
 * at or past (the one before it was younger). A collector so late that one snapshot passes both only
 * reaches the later: counts from day 7 are not the post's 24 hours.
 */
export function milestoneReached(
  record: Pick<PostInsightDoc, '_id' | 'workspaceId' | 'publishedAt' | 'latest'>,
  latest: PostCountsDoc,
  now: Date,
): DomainEvent | null {
  const before = record.latest?.takenAt.getTime() ?? -Infinity;
  const at = latest.takenAt.getTime();
  const passed = MILESTONES.filter((milestone) => {
    const due = record.publishedAt.getTime() + milestone.ageMs;
    return before < due && due <= at;
  });
  const reached = passed.at(-1);
  if (!reached) return null;
  return domainEvent(
    reached.type,
    { workspaceId: record.workspaceId, subjectId: record._id, actor: { type: 'system' } },
    now,
  );
}

/** The milestone of an event type, or undefined for any other event. */
export function milestoneOf(type: string): Milestone | undefined {
  return MILESTONES.find((milestone) => milestone.type === type);
}

/** What a milestone reports of a post: its first snapshot at or past the age, and the network's name. */
export interface MilestoneCounts {
  snapshot: PostSnapshotDoc;
  ageHours: number;
  network: string;
}

/** The counts a milestone reports: the post's first snapshot at or past its age; null when there is none. */
export async function milestoneSnapshot(
  deps: CoreDeps,
  postId: string,
  workspaceId: string,
  milestone: Milestone,
): Promise<MilestoneCounts | null> {
  const record = await deps.db.postInsights.findOne({ _id: postId, workspaceId });
  if (!record) return null;
  const due = record.publishedAt.getTime() + milestone.ageMs;
  const snapshots = await deps.db.postSnapshots.find({ postId }).toArray();
  const first = snapshots.filter((snapshot) => snapshot.takenAt.getTime() >= due).sort((a, b) => a.slot - b.slot)[0];
  if (!first) return null;
  const platform = await deps.db.platforms.findOne({ _id: record.platformId, workspaceId });
  return {
    snapshot: first,
    ageHours: Math.round((first.takenAt.getTime() - record.publishedAt.getTime()) / HOUR_MS),
    network: platform ? deps.providers.of(platform).name : 'the network',
  };
}

/** The chat message of a milestone: the counts in one line, the age they were taken at when it is not exact. */
export function milestoneText(milestone: Milestone, found: MilestoneCounts): string {
  const { snapshot, ageHours, network } = found;
  const exact = ageHours === Math.round(milestone.ageMs / HOUR_MS);
  const numbers = new Intl.NumberFormat('en-US');
  const counts = [
    `${numbers.format(snapshot.views)} views`,
    `${numbers.format(snapshot.likes)} likes`,
    `${numbers.format(snapshot.comments)} comments`,
    `${numbers.format(snapshot.shares)} shares`,
  ].join(', ');
  return `After ${milestone.label} on ${network}${exact ? '' : ` (counted at ${ageHours} hours)`}: ${counts}.`;
}
