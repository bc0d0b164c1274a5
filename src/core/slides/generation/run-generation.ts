import type { CoreDeps, Scope } from '../../context.js';
import type { DomainEvent } from '../../events/documents.js';
import { domainEvent, relayEvents } from '../../events/relay.js';
import type { GenerationJobDoc } from './documents.js';
import { refundCredit } from '../../credits/credits.js';
import { AppError } from '../../errors.js';
import { getAiSettings } from '../../tenancy/ai-settings-update.js';
import { writeCaptions } from '../write-captions.js';
import { createJobPosts } from './create-job-posts.js';
import { JobWriter } from './job-writer.js';
import { makeSlides, SlideFailure } from './make-slides.js';
import { UNSTARTED } from './submit.js';

/**
 * Runs a generation job from wherever it stands: captions (topic path), then each slide's image and
 * composite, then the post. Everything done is recorded as it happens, so a run that dies is resumed
 * by the next without paying or posting twice. An outcome a user must act on (a blocked prompt, a
 * used-up pool, a provider failure) ends the job FAILED; anything else is thrown for the queue to retry.
 */
export async function runGeneration(deps: CoreDeps, jobId: string): Promise<void> {
  const job = await deps.db.generationJobs.findOne({ _id: jobId });
  if (!job || job.status === 'DONE' || job.status === 'FAILED') return;
  const writer = new JobWriter(deps, job);
  const scope: Scope = { workspaceId: job.workspaceId, accountId: job.accountId, actor: job.actor };
  try {
    // PROCESSING goes with the first stage written, and each stage with what it starts from: every
    // write before the first image call delays every slide.
    const starting: Partial<GenerationJobDoc> = job.status === 'WAITING' ? { status: 'PROCESSING' } : {};
    if (job.slides.length === 0) await writeJobCaptions(deps, scope, writer, starting);
    else await writer.stage('generating_images', starting);
    await makeSlides(deps, scope, writer, deps.ai.imageConcurrency);
    // The stage is shown while the post is made, not before: the post needs only what is recorded.
    const [staged, posting] = await Promise.allSettled([
      writer.stage('creating_post'),
      createJobPosts(deps, scope, job),
    ]);
    if (posting.status === 'rejected') throw posting.reason;
    if (staged.status === 'rejected') throw staged.reason;
    const { groupIds, failures } = posting.value;
    const finishedAt = deps.now();
    const event = jobEvent('generation.done', job, finishedAt);
    await writer.stage('done', {
      status: 'DONE',
      postGroupId: groupIds[0] ?? null,
      postGroupIds: groupIds,
      error: failures.length > 0 ? `No post for ${failures.join('; ')}` : null,
      finishedAt,
      events: [...(job.events ?? []), event],
    });
    void relayEvents(deps, [event]);
  } catch (error) {
    if (error instanceof SlideFailure) return failJob(deps, writer, error.failure, error.index);
    if (error instanceof AppError) return failJob(deps, writer, error, null);
    throw error;
  }
}

/** Ends a job FAILED for good (the last retry of an unexpected error too); the queue will not run it again. */
export async function failJob(
  deps: CoreDeps,
  writer: JobWriter,
  error: AppError,
  slideIndex: number | null,
): Promise<void> {
  const { job } = writer;
  // Given back before the job is marked, so a run that dies in between gives them back when resumed
  // (a refund is harmless twice). The caption credit pays for captions, an image credit for a drawn image.
  if (job.captionSpend && job.slides.length === 0) await refundCredit(deps, job.captionSpend);
  const undrawn = (job.imageReservation ?? []).filter((_, position) => !job.slides[position]?.generatedMediaId);
  await Promise.all(undrawn.map((spend) => refundCredit(deps, spend)));
  const finishedAt = deps.now();
  const event = jobEvent('generation.failed', job, finishedAt);
  await writer.stage('failed', {
    status: 'FAILED',
    error: slideIndex === null ? error.message : `Slide ${slideIndex} failed: ${error.message}`,
    errorCode: error.code,
    failedSlideIndex: slideIndex,
    finishedAt,
    events: [...(job.events ?? []), event],
  });
  void relayEvents(deps, [event]);
}

function jobEvent(type: 'generation.done' | 'generation.failed', job: GenerationJobDoc, at: Date): DomainEvent {
  return domainEvent(type, { workspaceId: job.workspaceId, subjectId: job._id, actor: job.actor }, at);
}

async function writeJobCaptions(
  deps: CoreDeps,
  scope: Scope,
  writer: JobWriter,
  starting: Partial<GenerationJobDoc>,
): Promise<void> {
  const { request } = writer.job;
  const [settings] = await Promise.all([getAiSettings(deps, scope), writer.stage('writing_captions', starting)]);
  const captions = await writeCaptions(deps.ai.provider, {
    topic: request.topic ?? '',
    slideCount: request.slideCount,
    language: request.language,
    slideLength: request.slideLength,
    imagePrompts: true,
    systemPrompt: settings.systemPrompt,
    knowledgeBase: settings.knowledgeBase,
    exampleHooks: writer.job.hookExamples?.hooks ?? [],
  });
  await writer.stage('generating_images', {
    generatedCaption: captions.caption,
    slides: captions.slides.map((slide) => ({
      ...slide,
      imagePrompt: slide.imagePrompt ?? '',
      ...UNSTARTED,
      warnings: [],
    })),
  });
}
