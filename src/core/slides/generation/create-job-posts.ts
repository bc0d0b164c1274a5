import type { CoreDeps, Scope } from '../../context.js';
import { derivedUuid } from '../../ids.js';
import { createPosts } from '../../posts/create-posts.js';
import { settingsForNetwork } from '../../posts/settings-per-network.js';
import type { GenerationJobDoc } from './documents.js';

/**
 * Creates the job's post through the posts use case, once per platform even when the job runs again:
 * each platform's root and group ids derive from the job id, so a platform whose post exists is
 * skipped and a second insert of it is refused. Each network's platforms are posted with the slides drawn
 * in its frame. Returns the group ids and, for platforms that got no post, why; throws when none got one.
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
  // Why each platform got no post from this run (another run may still have made it).
  const failed = new Map<string, string>();
  // The time was checked to be in the future at submit; a job that outlived it posts at once rather
  // than failing after every image was paid for.
  const late = request.scheduledFor !== null && new Date(request.scheduledFor) <= deps.now();
  // Each network's platforms get its own slides; one network failing whole never stops another's post.
  let thrown: { error: unknown } | undefined;
  for (const { platformIds, mediaIds, settings } of postsToMake(job)) {
    const missing = platformIds.filter((id) => !done.has(id));
    if (missing.length === 0) continue;
    // A second run of the job at the same moment (the queue's lock is not exclusive on FerretDB) may
    // create a post first: what exists afterwards counts, whoever made it.
    const result = await createPosts(
      deps,
      scope,
      {
        platformIds: missing,
        content: request.content ?? job.generatedCaption ?? '',
        mode: late ? 'now' : request.mode,
        ...(request.scheduledFor && !late ? { scheduledFor: request.scheduledFor } : {}),
        mediaIds,
        settings,
        threadReplies: [],
      },
      { ids, generationJobId: job._id },
    ).catch((error: unknown) => {
      // createPosts throws when every platform it was given failed.
      thrown ??= { error };
      for (const id of missing) failed.set(id, error instanceof Error ? error.message : 'failed');
      return { results: [] };
    });
    for (const entry of result.results) {
      if (entry.status === 'created') done.set(entry.platformId, entry.post.root.groupId);
      else failed.set(entry.platformId, entry.error.message);
    }
  }
  // Read again only when some platform got no post from this run (another run may have made it).
  if (done.size < request.platformIds.length) {
    for (const [platformId, groupId] of await created()) done.set(platformId, groupId);
  }
  // The job fails only when no platform has its post.
  if (thrown && done.size === 0) throw thrown.error;
  const failures = request.platformIds.flatMap((id) =>
    !done.has(id) && failed.has(id) ? [`platform ${id}: ${failed.get(id) as string}`] : [],
  );
  // In the order the request listed the platforms, so postGroupId is the first one's.
  const groupIds = request.platformIds.flatMap((id) => (done.has(id) ? [done.get(id) as string] : []));
  return { groupIds, failures };
}

/**
 * The posts a job makes: each network's platforms with the slides drawn in its frame, the first network's first,
 * and the settings keys that network takes from the request's one object (each network's post is created on its
 * own, so the keys the job's other networks declare are left out here, as the submit check left them out).
 */
function postsToMake(
  job: GenerationJobDoc,
): { platformIds: string[]; mediaIds: string[]; settings: Record<string, unknown> }[] {
  const { request } = job;
  const networks = request.networks ?? [];
  if (networks.length <= 1) {
    const mediaIds = job.slides.map((s) => s.compositeMediaId as string);
    return [{ platformIds: request.platformIds, mediaIds, settings: request.settings }];
  }
  const providers = networks.map((network) => network.provider);
  return networks.map(({ provider, platformIds }, n) => ({
    platformIds,
    settings: settingsForNetwork(request.settings, provider, providers) as Record<string, unknown>,
    mediaIds: job.slides.map((slide) =>
      n === 0
        ? (slide.compositeMediaId as string)
        : (slide.networkComposites?.find((each) => each.provider === provider)?.mediaId as string),
    ),
  }));
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
