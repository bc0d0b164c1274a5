import type { CoreDeps, Scope } from '../context.js';
import { invalidRequest, notFound, type IssueDetail } from '../errors.js';
import type { MediaDoc } from '../media/documents.js';
import { deleteMedia } from '../media/manage-media.js';
import { readMediaBytes, storeMediaBytes } from '../media/store-bytes.js';
import type { SlideFrame } from '../providers/port.js';
import { getAiSettings } from '../tenancy/ai-settings-update.js';
import { toWarning, type CompositeInput, type CompositeResult } from './composite-schema.js';
import { loadNetworkFrames, type NetworkFrame } from './network-frames.js';
import { renderSlide } from './render/index.js';

/** Slides rendered at once: rendering is CPU work in libvips threads, which a few at once keep busy. */
export const RENDER_CONCURRENCY = 4;

type Made = CompositeResult['slides'];
type Warnings = CompositeResult['warnings'];

/**
 * Bakes each caption onto its image and stores the results as new media (source composite), in
 * index order: once per network of `platformIds`, in its frame, or once in the image's own shape
 * when none is named. Every image and platform is checked first (this workspace's, READY, an image);
 * if anything fails midway the composites made so far are deleted, so a failed call leaves nothing behind.
 */
export async function compositeSlides(deps: CoreDeps, scope: Scope, input: CompositeInput): Promise<CompositeResult> {
  const settings = await getAiSettings(deps, scope);
  const sources = await loadImages(deps, scope, input);
  const networks = input.platformIds ? await loadNetworkFrames(deps, scope, input.platformIds) : null;
  const frames: (SlideFrame | undefined)[] = networks ? networks.map((network) => network.frame) : [undefined];
  const slides = input.slides.map((slide, position) => ({ ...slide, position })).sort((a, b) => a.index - b.index);
  // One task per slide and frame; a slide's frames follow each other, so its image is read once.
  const tasks = slides.flatMap((slide) => frames.map((frame, framing) => ({ slide, frame, framing })));
  const made: Made[] = frames.map(() => []);
  const warnings: Warnings[] = frames.map(() => []);
  const bytes = new Map<string, Promise<Buffer>>();
  let next = 0;
  // Refused with server_busy only until the request's first slide gets a decode slot; then its slides wait.
  let admitted = false;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      const { slide, frame, framing } = tasks[next++] as (typeof tasks)[number];
      const source = sources.get(slide.mediaId) as MediaDoc;
      if (!bytes.has(slide.mediaId)) bytes.set(slide.mediaId, readMediaBytes(deps, source.storageKey));
      const textStyleId = slide.textStyleId ?? settings.defaultTextStyle;
      const render = async () => {
        admitted = true;
        return renderSlide({
          image: await (bytes.get(slide.mediaId) as Promise<Buffer>),
          caption: slide.caption,
          textStyleId,
          captionSize: slide.captionSize ?? settings.defaultCaptionSize,
          textEffect: slide.textEffect ?? 'outline',
          role: slide.index === 0 ? 'hook' : 'body',
          language: settings.defaultLanguage,
          frame,
        });
      };
      const rendered = await deps.media.decodes.run(render, admitted ? 'wait' : 'refuse');
      const media = await storeMediaBytes(deps, scope, rendered.jpeg, {
        source: 'composite',
        fileName: `slide-${slide.index + 1}${networks ? `-${(networks[framing] as NetworkFrame).provider}` : ''}.jpg`,
        caption: { index: slide.index, text: slide.caption, textStyleId, language: settings.defaultLanguage },
      });
      (made[framing] as Made).push({
        index: slide.index,
        mediaId: media.id,
        publicUrl: media.publicUrl,
        previewUrl: media.previewUrl,
      });
      for (const warning of rendered.warnings)
        (warnings[framing] as Warnings).push({ index: slide.index, ...toWarning(warning) });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(RENDER_CONCURRENCY, tasks.length) }, lane));
  } catch (error) {
    await discard(deps, scope, made.flat());
    throw error;
  }
  const byIndex = (a: { index: number }, b: { index: number }) => a.index - b.index;
  const answers = made.map((each, framing) => ({
    slides: each.sort(byIndex),
    warnings: (warnings[framing] as Warnings).sort(byIndex),
  }));
  const first = answers[0] as (typeof answers)[number];
  if (!networks) return first;
  return {
    ...first,
    frames: networks.map(({ provider, platformIds, frame }, framing) => ({
      provider,
      platformIds,
      width: frame.width,
      height: frame.height,
      ...(answers[framing] as (typeof answers)[number]),
    })),
  };
}

/** The source images by id; another workspace's or a missing id is not_found, a video or unready one invalid. */
async function loadImages(deps: CoreDeps, scope: Scope, input: CompositeInput): Promise<Map<string, MediaDoc>> {
  const ids = [...new Set(input.slides.map((slide) => slide.mediaId))];
  const docs = await deps.db.media.find({ _id: { $in: ids }, workspaceId: scope.workspaceId }).toArray();
  const byId = new Map(docs.map((doc) => [doc._id, doc]));
  const issues: IssueDetail[] = [];
  for (const [position, slide] of input.slides.entries()) {
    const doc = byId.get(slide.mediaId);
    if (!doc) throw notFound(`Media ${slide.mediaId}`);
    if (doc.mediaType !== 'image')
      issues.push({
        path: ['slides', position, 'mediaId'],
        message: `media ${doc._id} is a ${doc.mediaType}; captions are baked onto images`,
      });
    else if (doc.status !== 'READY')
      issues.push({ path: ['slides', position, 'mediaId'], message: `media ${doc._id} is not READY yet` });
  }
  if (issues.length > 0) throw invalidRequest(issues);
  return byId;
}

async function discard(deps: CoreDeps, scope: Scope, made: { mediaId: string }[]): Promise<void> {
  for (const { mediaId } of made) await deleteMedia(deps, deps.media, scope, mediaId).catch(() => undefined);
}
