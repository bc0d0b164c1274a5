import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import type { AccountSnapshotDoc } from './documents.js';
import { findWorkspacePlatform } from '../platforms/find-platform.js';
import { analyticsRange } from './range.js';
import type { AccountMetricsSchema, GetAccountMetricsInput } from './schema.js';

/** A connected account's totals over [startDate, endDate), and its newest totals whenever they were taken. */
export async function getAccountMetrics(
  deps: CoreDeps,
  scope: Scope,
  input: GetAccountMetricsInput,
): Promise<z.infer<typeof AccountMetricsSchema>> {
  const { start, end } = analyticsRange(input, deps.now());
  const platform = await findWorkspacePlatform(deps, scope, input.id);
  const inRange = await deps.db.accountSnapshots
    .find({ platformId: platform._id, takenAt: { $gte: start, $lt: end } })
    .sort({ takenAt: 1 })
    .toArray();
  const [newest] = await deps.db.accountSnapshots
    .find({ platformId: platform._id })
    .sort({ takenAt: -1 })
    .limit(1)
    .toArray();
  return { platformId: platform._id, latest: newest ? view(newest) : null, series: inRange.map(view) };
}

function view(doc: AccountSnapshotDoc): z.infer<typeof AccountMetricsSchema>['series'][number] {
  return {
    followers: doc.followers,
    following: doc.following,
    likes: doc.likes,
    videos: doc.videos,
    takenAt: doc.takenAt.toISOString(),
  };
}
