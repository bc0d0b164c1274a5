import { randomUUID } from 'node:crypto';
import type { CoreDeps, Scope } from '../../context.js';
import { refundCredit, spendCredit, type CreditSpend } from '../../credits/credits.js';
import { reserveCredits } from '../../credits/reserve.js';
import { derivedUuid } from '../../ids.js';
import { checkPlatforms, combinedFailure, type PlatformFailure } from '../../posts/check-platforms.js';
import { postTime } from '../../posts/create-posts.js';
import type { LoadedMedia } from '../../providers/port.js';
import { getAiSettings } from '../../tenancy/ai-settings-update.js';
import { DEFAULT_SLIDES } from '../caption-schema.js';
import { pickHookExamples } from '../hook-examples.js';
import { networksOf, type NetworkPlatforms } from '../network-frames.js';
import type { GenerationJobDoc, GenerationSlideDoc } from './documents.js';
import { generateSlideshowJob } from './job-handle.js';
import type { GenerateInput } from './schema.js';

/**
 * Queues a slideshow generation, fully checked and fully funded before anything is spent. First the
 * post the job will make is checked as create posts checks one (each platform is the workspace's
 * and takes these settings for a photo post of this many slides; a scheduled time is in the
 * future): any failure is the answer. Then an image credit for every slide is reserved, all or
 * none (else 402 ai_image_limit_reached), and on the topic path the caption credit is spent. The
 * job starts WAITING; what it does not use is given back if it fails.
 */
export async function submitGeneration(
  deps: CoreDeps,
  scope: Scope,
  input: GenerateInput,
): Promise<{ jobId: string; status: 'WAITING'; total: number }> {
  const total = input.slides?.length ?? input.slideCount ?? DEFAULT_SLIDES;
  // A keyed request executed again (its first process died before its answer was kept) finds its job;
  // an unkeyed one has a fresh id, so there is nothing to look for.
  const seed = scope.idempotencySeed;
  const jobId = seed === undefined ? randomUUID() : derivedUuid(`${seed}:job`);
  if (seed !== undefined) {
    const earlier = await deps.db.generationJobs.findOne({ _id: jobId, workspaceId: scope.workspaceId });
    if (earlier) return resumeEarlier(deps, earlier);
  }
  const networks = await checkJobPost(deps, scope, input, total);
  const settings = await getAiSettings(deps, scope);
  const language = input.language ?? settings.defaultLanguage;
  const useTopHooks = input.topic !== undefined && (input.useTopHooks ?? settings.defaultUseTopHooks);
  const hookExamples = input.topic === undefined ? null : await pickHookExamples(deps, scope, useTopHooks, language);
  const slides = (input.slides ?? []).toSorted((a, b) => a.index - b.index);
  const indexes = input.slides ? slides.map((slide) => slide.index) : Array.from({ length: total }, (_, i) => i);
  const imageReservation = await reserveCredits(
    deps,
    scope,
    'image',
    indexes.map((index) => `${jobId}#${index}`),
  );
  let captionSpend: CreditSpend | null = null;
  try {
    if (input.topic !== undefined) captionSpend = await spendCredit(deps, scope, 'caption', `generate:${jobId}`);
  } catch (error) {
    await refundAll(deps, imageReservation);
    throw error;
  }
  const now = deps.now();
  const job: GenerationJobDoc = {
    _id: jobId,
    workspaceId: scope.workspaceId,
    accountId: scope.accountId,
    actor: scope.actor,
    status: 'WAITING',
    stage: 'queued',
    request: {
      platformIds: input.platformIds,
      topic: input.topic ?? null,
      slideCount: total,
      language,
      slideLength: input.slideLength ?? settings.defaultSlideLength,
      content: input.content ?? null,
      mode: input.mode,
      scheduledFor: input.mode === 'schedule' ? (input.scheduledFor ?? null) : null,
      textStyleId: input.textStyleId ?? settings.defaultTextStyle,
      captionSize: input.captionSize ?? settings.defaultCaptionSize,
      textEffect: input.textEffect ?? 'outline',
      settings: input.settings ?? {},
      networks,
      useTopHooks,
    },
    hookExamples,
    captionSpend,
    imageReservation,
    generatedCaption: null,
    slides: slides.map((slide): GenerationSlideDoc => ({ ...slide, ...UNSTARTED })),
    total,
    completed: 0,
    postGroupId: null,
    postGroupIds: [],
    error: null,
    errorCode: null,
    failedSlideIndex: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
  };
  await queue(deps, job);
  return { jobId, status: 'WAITING', total };
}

/**
 * Checks the post the job will make, as create posts would: the settings and content against each
 * platform's live rules for a photo post of `total` composited JPEG slides, and the schedule time.
 * Every platform must pass, since the job's spending is for all of them. Returns their networks.
 */
async function checkJobPost(
  deps: CoreDeps,
  scope: Scope,
  input: GenerateInput,
  total: number,
): Promise<NetworkPlatforms[]> {
  postTime(input, deps.now());
  const checks = await checkPlatforms(
    deps,
    scope,
    { platformIds: input.platformIds, content: input.content ?? '', settings: input.settings, threadReplies: [] },
    plannedSlides(total),
  );
  const failures = checks.filter((check): check is PlatformFailure => !check.ok);
  if (failures.length > 0) throw combinedFailure(failures);
  return networksOf(checks.flatMap((check) => (check.ok ? [check.platform] : [])));
}

/** The slides a job will post, as the post check sees media: READY JPEG images, none of them yet stored. */
function plannedSlides(total: number): LoadedMedia {
  const media = Array.from({ length: total }, (_, index) => ({
    id: `slide ${index}`,
    mediaType: 'image',
    mimeType: 'image/jpeg',
    size: null,
    status: 'READY',
  }));
  return { media, docs: [], indexes: media.map((_, index) => index), issues: [] };
}

async function refundAll(deps: CoreDeps, spends: readonly CreditSpend[]): Promise<void> {
  await Promise.all(spends.map((spend) => refundCredit(deps, spend)));
}

/** What a slide holds before the job has drawn anything for it. */
export const UNSTARTED = Object.freeze({
  generatedMediaId: null,
  imageSpend: null,
  compositeMediaId: null,
  warnings: [],
});

/** Stores and enqueues the job; if either fails, nothing stays behind and every credit is given back. */
async function queue(deps: CoreDeps, job: GenerationJobDoc): Promise<void> {
  const refund = () =>
    refundAll(deps, [...(job.captionSpend ? [job.captionSpend] : []), ...(job.imageReservation ?? [])]);
  try {
    await deps.db.generationJobs.insertOne(job);
  } catch (error) {
    // Not stored, so not deleted either: a refused insert may be an earlier run's job under the same id.
    await refund();
    throw error;
  }
  try {
    await deps.jobs.enqueue(generateSlideshowJob, { jobId: job._id });
  } catch (error) {
    await deps.db.generationJobs.deleteOne({ _id: job._id });
    await refund();
    throw error;
  }
}

/**
 * The answer an earlier run of the same keyed request gave. That run may have died between storing its
 * job and queueing it, so a job still WAITING is queued again: a job run twice makes its post once.
 */
async function resumeEarlier(
  deps: CoreDeps,
  job: GenerationJobDoc,
): Promise<{ jobId: string; status: 'WAITING'; total: number }> {
  if (job.status === 'WAITING') await deps.jobs.enqueue(generateSlideshowJob, { jobId: job._id });
  return { jobId: job._id, status: 'WAITING', total: job.total };
}
