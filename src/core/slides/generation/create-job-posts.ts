import { createHash } from 'node:crypto';
import type { CoreDeps, Scope } from '../../context.js';
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
  const ids = (platformId: string) => ({
    rootId: derivedUuid(`${job._id}:root:${platformId}`),
    groupId: derivedUuid(`${job._id}:group:${platformId}`),
  });
  const existing = await deps.db.posts
    .find(
      { _id: { $in: request.platformIds.map((id) => ids(id).rootId) } },
      { projection: { platformId: 1, groupId: 1 } },
    )
    .toArray();
  const done = new Map(existing.map((post) => [post.platformId, post.groupId]));
  const remaining = request.platformIds.filter((id) => !done.has(id));
  const failures: string[] = [];
  if (remaining.length > 0) {
    const result = await createPosts(
      deps,
      scope,
      {
        platformIds: remaining,
        content: request.content ?? job.generatedCaption ?? '',
        mode: request.mode,
        ...(request.scheduledFor ? { scheduledFor: request.scheduledFor } : {}),
        mediaIds: job.slides.map((slide) => slide.compositeMediaId as string),
        settings: request.settings,
        threadReplies: [],
      },
      { ids, generationJobId: job._id },
    );
    for (const entry of result.results) {
      if (entry.status === 'created') done.set(entry.platformId, entry.post.root.groupId);
      else failures.push(`platform ${entry.platformId}: ${entry.error.message}`);
    }
  }
  // In the order the request listed the platforms, so postGroupId is the first one's.
  const groupIds = request.platformIds.flatMap((id) => (done.has(id) ? [done.get(id) as string] : []));
  return { groupIds, failures };
}

/** A stable UUID (version 8 layout) from a name: the same job and platform always give the same id. */
function derivedUuid(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
