import type { CoreDeps, Scope } from '../../context.js';
import { spendCreditOnce } from '../../credits/credits.js';
import { AppError } from '../../errors.js';
import { deleteMedia } from '../../media/manage-media.js';
import { readMediaBytes, storeMediaBytes } from '../../media/store-bytes.js';
import type { SlideFrame } from '../../providers/port.js';
import { withFrames } from '../network-frames.js';
import {
  frameFor,
  prepareCaption,
  renderSlide,
  sourceFrame,
  type CaptionInput,
  type PreparedCaption,
} from '../render/index.js';
import { toWarning } from '../composite-schema.js';
import type { GenerationJobDoc, GenerationSlideDoc, NetworkComposite } from './documents.js';
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
  const frames = jobFrames(deps, writer.job);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (!failure && !unexpected && next < pending.length) {
      const { slide, position } = pending[next++] as { slide: GenerationSlideDoc; position: number };
      // The caption is laid out while the model draws (a failure here is retried by the render itself).
      const caption = captionOf(writer, slide);
      const layouts = Promise.all(
        frames.map(({ frame }) =>
          prepareCaption(caption, frame ?? sourceFrame(frameFor(...IMAGE_SIZE))).catch(() => undefined),
        ),
      );
      const image = await imageOf(deps, writer, slide).catch(settle(slide.index));
      if (image)
        finishing.push(
          layouts
            .then((prepared) =>
              finishSlide(deps, scope, writer, position, image, {
                caption,
                frames: frames.map((each, framing) => ({ ...each, prepared: prepared[framing] })),
              }),
            )
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

/** A frame a job's slides are drawn in: a network's (undefined on older jobs: the image's shape). */
interface JobFrame {
  provider: string | null;
  frame: SlideFrame | undefined;
}

/** The job's networks' frames, the first network's first; one frame by the image's shape on older jobs. */
function jobFrames(deps: CoreDeps, job: GenerationJobDoc): JobFrame[] {
  if (!job.request.networks || job.request.networks.length === 0) return [{ provider: null, frame: undefined }];
  return withFrames(deps, job.request.networks).map(({ provider, frame }) => ({ provider, frame }));
}

/** The 2:3 portrait the image model draws; it fills a 9:16 slide and a 4:5 one by a centred crop (docs/decisions.md). */
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
 * Charges and stores a fresh image while its caption is baked on in each of the job's frames and the
 * composites stored, then records them. The image is recorded first (the writer keeps that order), so a
 * slide's composites are never recorded without its charged image; they are stored beside the image,
 * not after it, since with the last round's slides all finishing at once every step waits for CPU.
 */
async function finishSlide(
  deps: CoreDeps,
  scope: Scope,
  writer: JobWriter,
  position: number,
  image: { bytes: Buffer; fresh: boolean },
  drawing: { caption: CaptionInput; frames: (JobFrame & { prepared: PreparedCaption | undefined })[] },
): Promise<void> {
  const { job } = writer;
  const slide = job.slides[position] as GenerationSlideDoc;
  const { caption } = drawing;
  const record = async () => {
    const imageSpend =
      job.imageReservation?.[position] ?? (await spendCreditOnce(deps, scope, 'image', `${job._id}#${slide.index}`));
    const media = await storeMediaBytes(deps, scope, image.bytes, {
      source: 'generated',
      fileName: `slideshow-${job._id.slice(0, 8)}-${slide.index + 1}-image.jpg`,
    });
    await writer.slide(position, { generatedMediaId: media.id, imageSpend }, true);
  };
  const stored: string[] = [];
  const composite = async ({ provider, frame, prepared }: (typeof drawing.frames)[number]) => {
    // A job: it waits for a decode slot rather than failing when requests fill the queue.
    const rendered = await deps.media.decodes.run(
      () => renderSlide({ ...caption, ...(prepared ? { prepared } : {}), frame, image: image.bytes }),
      'wait',
    );
    const media = await storeMediaBytes(deps, scope, rendered.jpeg, {
      source: 'composite',
      fileName: `slideshow-${job._id.slice(0, 8)}-${slide.index + 1}${provider && drawing.frames.length > 1 ? `-${provider}` : ''}.jpg`,
      caption: {
        index: slide.index,
        text: slide.caption,
        textStyleId: caption.textStyleId,
        language: job.request.language,
      },
    });
    stored.push(media.id);
    return { provider: provider ?? '', mediaId: media.id, warnings: rendered.warnings.map(toWarning) };
  };
  // Both settle before either's failure is thrown: no write of this slide may land after the run ends.
  const [recording, compositing] = await Promise.allSettled([
    image.fresh ? record() : undefined,
    Promise.all(drawing.frames.map(composite)),
  ]);
  if (recording.status === 'rejected' || compositing.status === 'rejected') {
    // A composite of an image that was not recorded would be drawn again on the next run.
    for (const mediaId of stored) await deleteMedia(deps, deps.media, scope, mediaId).catch(() => undefined);
    throw recording.status === 'rejected' ? recording.reason : (compositing as PromiseRejectedResult).reason;
  }
  const [first, ...others] = compositing.value as [NetworkComposite, ...NetworkComposite[]];
  await writer.slide(position, {
    compositeMediaId: first.mediaId,
    warnings: first.warnings,
    ...(others.length > 0 ? { networkComposites: others } : {}),
  });
}
