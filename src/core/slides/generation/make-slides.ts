import type { CoreDeps, Scope } from '../../context.js';
import { spendCreditOnce } from '../../credits/credits.js';
import { AppError } from '../../errors.js';
import { readMediaBytes, storeMediaBytes } from '../../media/store-bytes.js';
import { renderSlide } from '../render/index.js';
import type { GenerationSlideDoc } from './documents.js';
import type { JobWriter } from './job-writer.js';

/** A slide's failure: which slide, and the outcome that ended it. */
export class SlideFailure extends Error {
  constructor(
    readonly index: number,
    readonly failure: AppError,
  ) {
    super(`Slide ${index} failed: ${failure.message}`);
  }
}

/**
 * Draws, stores, charges and composites every slide not yet done, `concurrency` at a time. The image
 * credit is charged when a slide's image has succeeded (once per slide, even across a resumed run).
 * After the first failure no new slide starts; those in flight finish, then the failure is thrown.
 */
export async function makeSlides(deps: CoreDeps, scope: Scope, writer: JobWriter, concurrency: number): Promise<void> {
  const pending = writer.job.slides
    .map((slide, position) => ({ slide, position }))
    .filter(({ slide }) => !slide.compositeMediaId);
  let failure: SlideFailure | undefined;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (!failure && next < pending.length) {
      const { slide, position } = pending[next++] as { slide: GenerationSlideDoc; position: number };
      try {
        await makeSlide(deps, scope, writer, slide, position);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        failure ??= new SlideFailure(slide.index, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, pending.length) }, lane));
  if (failure) throw failure;
}

async function makeSlide(
  deps: CoreDeps,
  scope: Scope,
  writer: JobWriter,
  slide: GenerationSlideDoc,
  position: number,
): Promise<void> {
  const { job } = writer;
  let image: Buffer;
  if (slide.generatedMediaId) {
    const stored = await deps.db.media.findOne({ _id: slide.generatedMediaId });
    if (!stored) throw new AppError('internal_error', 'the stored image of this slide is gone');
    image = await readMediaBytes(deps, stored.storageKey);
  } else {
    image = await deps.ai.provider.image({ purpose: 'slide image', prompt: slide.imagePrompt, size: '1024x1536' });
    const imageSpend = await spendCreditOnce(deps, scope, 'image', `${job._id}#${slide.index}`);
    const media = await storeMediaBytes(deps, scope, image, {
      source: 'generated',
      fileName: `slideshow-${job._id.slice(0, 8)}-${slide.index + 1}-image.jpg`,
    });
    await writer.slide(position, { generatedMediaId: media.id, imageSpend }, true);
  }
  const rendered = await renderSlide({
    image,
    caption: slide.caption,
    textStyleId: job.request.textStyleId,
    captionSize: job.request.captionSize,
    textEffect: job.request.textEffect,
    role: slide.index === 0 ? 'hook' : 'body',
    language: job.request.language,
  });
  const composite = await storeMediaBytes(deps, scope, rendered.jpeg, {
    source: 'composite',
    fileName: `slideshow-${job._id.slice(0, 8)}-${slide.index + 1}.jpg`,
  });
  await writer.slide(position, {
    compositeMediaId: composite.id,
    warnings: rendered.warnings.map(({ code, message }) => ({ code, message })),
  });
}
