import type { CoreDeps, Scope } from '../../context.js';
import { derivedUuid } from '../../ids.js';
import { createPosts } from '../../posts/create-posts.js';
import type { GenerationJobDoc } from './documents.js';

/**
 * Creates the job's post through the posts use case, once per platform even when the job runs again:
 * each platform's root and group ids derive from the job id, so a platform whose post exists is
 * skipped and a second insert of it is refused. Returns the group ids and, for platforms that got no
 * post, why (createPosts throws when every remaining platform failed).
 */
export async function createJobPosts(
  deps: CoreDeps,
  scope: Scope,
  job: GenerationJobDoc,
): Promise<{ groupIds: string[]; failures: string[] }> {
  const { request } = job;
  const ids = (platformId: string) => jobPostIdsOf(job._id, platformId);
  const created = async () => {
    const existing = await deps.db.posts
      .find(
        { _id: { $in: request.platformIds.map((id) => ids(id).rootId) } },
        { projection: { platformId: 1, groupId: 1 } },
      )
      .toArray();
    return new Map(existing.map((post) => [post.platformId, post.groupId]));
  };
  const done = await created();
  const remaining = request.platformIds.filter((id) => !done.has(id));
  const failures: string[] = [];
  // The time was checked to be in the future at submit; a job that outlived it posts at once rather
  // than failing after every image was paid for.
  const late = request.scheduledFor !== null && new Date(request.scheduledFor) <= deps.now();
  if (remaining.length > 0) {
    // A second run of the job at the same moment (the queue's lock is not exclusive on FerretDB) may
    // create a post first: what exists afterwards counts, whoever made it.
    const result = await createPosts(
      deps,
      scope,
      {
        platformIds: remaining,
        content: request.content ?? job.generatedCaption ?? '',
        mode: late ? 'now' : request.mode,
        ...(request.scheduledFor && !late ? { scheduledFor: request.scheduledFor } : {}),
        mediaIds: job.slides.map((slide) => slide.compositeMediaId as string),
        settings: request.settings,
        threadReplies: [],
      },
      { ids, generationJobId: job._id },
    ).catch(async (error: unknown) => {
      const now = await created();
      if (remaining.every((id) => now.has(id))) return { results: [] };
      throw error;
    });
    for (const entry of result.results)
      if (entry.status === 'created') done.set(entry.platformId, entry.post.root.groupId);
    // Read again only when some platform got no post from this run (another run may have made it).
    if (done.size < request.platformIds.length) {
      for (const [platformId, groupId] of await created()) done.set(platformId, groupId);
    }
    for (const entry of result.results) {
      if (entry.status === 'failed' && !done.has(entry.platformId))
        failures.push(`platform ${entry.platformId}: ${entry.error.message}`);
    }
  }
  // In the order the request listed the platforms, so postGroupId is the first one's.
  const groupIds = request.platformIds.flatMap((id) => (done.has(id) ? [done.get(id) as string] : []));
  return { groupIds, failures };
}

/** The ids a job's post for one platform has: its root's and its group's, both derived from the job id. */
function jobPostIdsOf(jobId: string, platformId: string): { rootId: string; groupId: string } {
  return { rootId: derivedUuid(`${jobId}:root:${platformId}`), groupId: derivedUuid(`${jobId}:group:${platformId}`) };
}

/** The root post ids of a finished job's post groups, in the order of its `postGroupIds`. */
export function jobRootPostIds(job: Pick<GenerationJobDoc, '_id' | 'request' | 'postGroupIds'>): string[] {
  const created = new Set(job.postGroupIds);
  return job.request.platformIds
    .map((platformId) => jobPostIdsOf(job._id, platformId))
    .filter((ids) => created.has(ids.groupId))
    .map((ids) => ids.rootId);
}
