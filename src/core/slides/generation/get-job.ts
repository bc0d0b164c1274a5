import type { CoreDeps, Scope } from '../../context.js';
import { notFound } from '../../errors.js';
import type { GenerationJobDoc } from './documents.js';
import type { GenerationJob } from './schema.js';
import { jobRootPostIds } from './create-job-posts.js';

/** A generation job of the caller's workspace; anyone else's id is simply not found. */
export async function getGenerationJob(deps: CoreDeps, scope: Scope, id: string): Promise<GenerationJob> {
  const job = await deps.db.generationJobs.findOne({ _id: id });
  if (!job || job.workspaceId !== scope.workspaceId) throw notFound('Generation job');
  return toGenerationJob(job);
}

export function toGenerationJob(job: GenerationJobDoc): GenerationJob {
  const postIds = jobRootPostIds(job);
  return {
    id: job._id,
    status: job.status,
    stage: job.stage,
    total: job.total,
    completed: job.completed,
    postId: postIds[0] ?? null,
    postIds,
    postGroupId: job.postGroupId,
    postGroupIds: job.postGroupIds,
    error: job.error,
    errorCode: job.errorCode,
    failedSlideIndex: job.failedSlideIndex,
    hookExamples: job.hookExamples ?? null,
    warnings: jobWarnings(job),
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
}

/** Each slide's warnings in index order; a job drawn for several networks names the network of each. */
function jobWarnings(job: GenerationJobDoc): GenerationJob['warnings'] {
  const networks = job.request.networks ?? [];
  const first = networks.length > 1 ? { provider: (networks[0] as { provider: string }).provider } : {};
  return job.slides.flatMap((slide) => [
    ...slide.warnings.map((warning) => ({ index: slide.index, ...warning, ...first })),
    ...(slide.networkComposites ?? []).flatMap((composite) =>
      composite.warnings.map((warning) => ({ index: slide.index, ...warning, provider: composite.provider })),
    ),
  ]);
}
