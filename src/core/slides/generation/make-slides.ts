import type { CoreDeps, Scope } from '../../context.js';
import { spendCreditOnce } from '../../credits/credits.js';
import { AppError } from '../../errors.js';
import { deleteMedia } from '../../media/manage-media.js';
import { readMediaBytes, storeMediaBytes } from '../../media/store-bytes.js';
import { frameFor, prepareCaption, renderSlide, type CaptionInput, type PreparedCaption } from '../render/index.js';
import { toWarning } from '../composite-schema.js';
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
 * Draws, stores, charges and composites every slide not yet done. At most `concurrency` image calls
 * are in flight; a slide whose image is back is finished (stored, charged, composited) beside the
 * next calls rather than before them, so the model is never kept waiting on our own work. The image
 * credit is charged when a slide's image has succeeded (once per slide, even across a resumed run).
 * After the first failure no new image call starts; work in flight finishes, then the failure is thrown.
 */
export async function makeSlides(deps: CoreDeps, scope: Scope, writer: JobWriter, concurrency: number): Promise<void> {
  const pending = writer.job.slides
    .map((slide, position) => ({ slide, position }))
    .filter(({ slide }) => !slide.compositeMediaId);
  let failure: SlideFailure | undefined;
  let unexpected: { error: unknown } | undefined;
  // Every error is kept, none thrown, so nothing is left running or unhandled when the first arrives.
  const settle = (index: number) => (error: unknown) => {
    if (error instanceof AppError) failure ??= new SlideFailure(index, error);
    else unexpected ??= { error };
  };
  const finishing: Promise<void>[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (!failure && !unexpected && next < pending.length) {
      const { slide, position } = pending[next++] as { slide: GenerationSlideDoc; position: number };
      // The caption is laid out while the model draws (a failure here is retried by the render itself).
      const caption = captionOf(writer, slide);
      const layout = prepareCaption(caption, frameFor(...IMAGE_SIZE)).catch(() => undefined);
      const image = await imageOf(deps, writer, slide).catch(settle(slide.index));
      if (image)
        finishing.push(
          layout
            .then((prepared) => finishSlide(deps, scope, writer, position, image, { ...caption, prepared }))
            .catch(settle(slide.index)),
        );
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, pending.length) }, lane));
  await Promise.all(finishing);
  if (unexpected) throw unexpected.error;
  if (failure) throw failure;
}

/** A slide's image as it came from the model: fetched now, or read back when an earlier run stored it. */
async function imageOf(
  deps: CoreDeps,
  writer: JobWriter,
  slide: GenerationSlideDoc,
): Promise<{ bytes: Buffer; fresh: boolean }> {
  if (slide.generatedMediaId) {
    const stored = await deps.db.media.findOne({ _id: slide.generatedMediaId });
    if (!stored) throw new AppError('internal_error', 'the stored image of this slide is gone');
    return { bytes: await readMediaBytes(deps, stored.storageKey), fresh: false };
  }
  const bytes = await deps.ai.provider.image({
    purpose: 'slide image',
    prompt: slide.imagePrompt,
    size: `${IMAGE_SIZE[0]}x${IMAGE_SIZE[1]}`,
  });
  return { bytes, fresh: true };
}

/** The 2:3 portrait the image model draws; it fills a 9:16 slide (docs/decisions.md). */
const IMAGE_SIZE = [1024, 1536] as const;

function captionOf(writer: JobWriter, slide: GenerationSlideDoc): CaptionInput {
  const { request } = writer.job;
  return {
    caption: slide.caption,
    textStyleId: request.textStyleId,
    captionSize: request.captionSize,
    textEffect: request.textEffect,
    role: slide.index === 0 ? 'hook' : 'body',
    language: request.language,
  };
}

/**
 * Charges and stores a fresh image while its caption is baked on and the composite stored, then
 * records the composite. The image is recorded first (the writer keeps that order), so a slide's
 * composite is never recorded without its charged image; the composite is stored beside the image,
 * not after it, since with the last round's slides all finishing at once every step waits for CPU.
 */
async function finishSlide(
  deps: CoreDeps,
  scope: Scope,
  writer: JobWriter,
  position: number,
  image: { bytes: Buffer; fresh: boolean },
  caption: CaptionInput & { prepared?: PreparedCaption },
): Promise<void> {
  const { job } = writer;
  const slide = job.slides[position] as GenerationSlideDoc;
  const record = async () => {
    const imageSpend =
      job.imageReservation?.[position] ?? (await spendCreditOnce(deps, scope, 'image', `${job._id}#${slide.index}`));
    const media = await storeMediaBytes(deps, scope, image.bytes, {
      source: 'generated',
      fileName: `slideshow-${job._id.slice(0, 8)}-${slide.index + 1}-image.jpg`,
    });
    await writer.slide(position, { generatedMediaId: media.id, imageSpend }, true);
  };
  const composite = async () => {
    // A job: it waits for a decode slot rather than failing when requests fill the queue.
    const rendered = await deps.media.decodes.run(() => renderSlide({ ...caption, image: image.bytes }), 'wait');
    const media = await storeMediaBytes(deps, scope, rendered.jpeg, {
      source: 'composite',
      fileName: `slideshow-${job._id.slice(0, 8)}-${slide.index + 1}.jpg`,
      caption: {
        index: slide.index,
        text: slide.caption,
        textStyleId: caption.textStyleId,
        language: job.request.language,
      },
    });
    return { media, warnings: rendered.warnings };
  };
  // Both settle before either's failure is thrown: no write of this slide may land after the run ends.
  const [recording, compositing] = await Promise.allSettled([image.fresh ? record() : undefined, composite()]);
  if (recording.status === 'rejected') {
    // A composite of an image that was not recorded would be drawn again on the next run.
    if (compositing.status === 'fulfilled') {
      await deleteMedia(deps, deps.media, scope, compositing.value.media.id).catch(() => undefined);
    }
    throw recording.reason;
  }
  if (compositing.status === 'rejected') throw compositing.reason;
  const { media, warnings } = compositing.value;
  await writer.slide(position, {
    compositeMediaId: media.id,
    warnings: warnings.map(toWarning),
  });
}
