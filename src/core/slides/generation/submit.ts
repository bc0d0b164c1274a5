import { randomUUID } from 'node:crypto';
import type { CoreDeps, Scope } from '../../context.js';
import { refundCredit, remainingCredits, spendCredit, type CreditSpend } from '../../credits/credits.js';
import { AppError, notFound } from '../../errors.js';
import { getAiSettings } from '../../tenancy/ai-settings-update.js';
import { DEFAULT_SLIDES } from '../caption-schema.js';
import type { GenerationJobDoc, GenerationSlideDoc } from './documents.js';
import { generateSlideshowJob } from './job-handle.js';
import type { GenerateInput } from './schema.js';

/**
 * Queues a slideshow generation. Checks first, in this order: the platforms are the workspace's, the
 * account has an image credit for every slide (else 402 ai_image_limit_reached, nothing spent), then
 * on the topic path spends the caption credit at once. The job starts WAITING.
 */
export async function submitGeneration(
  deps: CoreDeps,
  scope: Scope,
  input: GenerateInput,
): Promise<{ jobId: string; status: 'WAITING'; total: number }> {
  await requirePlatforms(deps, scope, input.platformIds);
  const total = input.slides?.length ?? input.slideCount ?? DEFAULT_SLIDES;
  const left = await remainingCredits(deps, scope.accountId, 'image');
  if (left < total) {
    throw new AppError(
      'ai_image_limit_reached',
      `This slideshow needs ${total} image credits and the account has ${left} left this month; they reset on the 1st (UTC)`,
    );
  }
  const jobId = randomUUID();
  const settings = await getAiSettings(deps, scope);
  const captionSpend =
    input.topic === undefined ? null : await spendCredit(deps, scope, 'caption', `generate:${jobId}`);
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
      language: input.language ?? settings.defaultLanguage,
      slideLength: input.slideLength ?? settings.defaultSlideLength,
      content: input.content ?? null,
      mode: input.mode,
      scheduledFor: input.mode === 'schedule' ? (input.scheduledFor ?? null) : null,
      textStyleId: input.textStyleId ?? settings.defaultTextStyle,
      captionSize: input.captionSize ?? settings.defaultCaptionSize,
      textEffect: input.textEffect ?? 'outline',
      settings: input.settings ?? {},
    },
    captionSpend,
    generatedCaption: null,
    slides: (input.slides ?? [])
      .toSorted((a, b) => a.index - b.index)
      .map((slide): GenerationSlideDoc => ({ ...slide, ...UNSTARTED })),
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
  await queue(deps, job, captionSpend);
  return { jobId, status: 'WAITING', total };
}

/** What a slide holds before the job has drawn anything for it. */
export const UNSTARTED = Object.freeze({
  generatedMediaId: null,
  imageSpend: null,
  compositeMediaId: null,
  warnings: [],
});

/** Stores and enqueues the job; if either fails, nothing stays behind and the caption credit is refunded. */
async function queue(deps: CoreDeps, job: GenerationJobDoc, captionSpend: CreditSpend | null): Promise<void> {
  try {
    await deps.db.generationJobs.insertOne(job);
    await deps.jobs.enqueue(generateSlideshowJob, { jobId: job._id });
  } catch (error) {
    await deps.db.generationJobs.deleteOne({ _id: job._id });
    if (captionSpend) await refundCredit(deps, captionSpend);
    throw error;
  }
}

async function requirePlatforms(deps: CoreDeps, scope: Scope, platformIds: readonly string[]): Promise<void> {
  const found = await deps.db.platforms
    .find({ _id: { $in: [...platformIds] }, workspaceId: scope.workspaceId }, { projection: { _id: 1 } })
    .toArray();
  if (found.length !== new Set(platformIds).size) throw notFound('Platform');
}
