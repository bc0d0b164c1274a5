import { z } from 'zod';
import type { IssueDetail } from '../errors.js';
import { MediaSchema } from '../media/schema.js';
import { requireVisible } from '../operations/visible-text.js';
import { CreatePostsInputSchema } from '../posts/schema.js';
import { CAPTION_SIZES, TEXT_EFFECTS, TEXT_STYLE_IDS, type SlideWarning } from './render/index.js';
import { MAX_CAPTION_CHARS } from './slide-length.js';
import { strictSlidesInput } from './workspace-input.js';

/** Slides per composite request (spec 8), the most a TikTok carousel takes. */
export const MAX_COMPOSITE_SLIDES = 35;

/**
 * JSON Schema's `uniqueItems` compares whole items, so it cannot say that no two slides share an
 * index: the descriptions say it, and so does this extension keyword, for tools that read it.
 */
export const UNIQUE_INDEXES: z.GlobalMeta = { 'x-unique-by': 'index' };

const CompositeSlideSchema = z.object({
  index: z
    .int()
    .min(0)
    .max(MAX_COMPOSITE_SLIDES - 1)
    .describe('0-based order in the finished carousel; 0 is the hook'),
  mediaId: z.uuid().describe('a READY image of this workspace'),
  caption: requireVisible(z.string().max(MAX_CAPTION_CHARS), 'the caption').describe(
    '1 to 500 characters, at least one of them visible',
  ),
  textStyleId: z
    .enum(TEXT_STYLE_IDS)
    .optional()
    .describe('omitted: the workspace default, else primary-sans (TikTok Sans)'),
  captionSize: z.enum(CAPTION_SIZES).optional().describe('omitted: the workspace default, else medium'),
  textEffect: z
    .enum(TEXT_EFFECTS)
    .optional()
    .describe('outline (default): white text, dark outline; box: dark text on a white box'),
});

export const CompositeInputSchema = strictSlidesInput({
  slides: z
    .array(CompositeSlideSchema)
    .min(1)
    .max(MAX_COMPOSITE_SLIDES)
    .meta(UNIQUE_INDEXES)
    .describe('1 to 35 slides; each index at most once'),
  platformIds: CreatePostsInputSchema.shape.platformIds
    .optional()
    .describe(
      "the platforms the slides are for, each once: every slide is drawn in each of their networks' frames (TikTok 1080x1920, an Instagram carousel 1080x1350), the caption laid out anew in each frame's safe area; answered per network in frames. Omitted: each slide is 9:16 or 4:5 by its image's shape",
    ),
});
export type CompositeInput = z.output<typeof CompositeInputSchema>;

/** Each index once: it is the slide's place in the carousel. */
export function checkCompositeInput(input: CompositeInput): IssueDetail[] {
  const seen = new Set<number>();
  return input.slides.flatMap((slide, position) => {
    const twice = seen.has(slide.index);
    seen.add(slide.index);
    return twice ? [{ path: ['slides', position, 'index'], message: `index ${slide.index} is given twice` }] : [];
  });
}

/** A slide's warning without its slide: the code, a sentence, and the characters left out (unsupported_character). */
export const WarningSchema = z.object({
  code: z
    .string()
    .describe(
      'text_shrunk: the caption did not fit at its size and was drawn smaller; unsupported_character: characters no bundled font can draw were left out',
    ),
  message: z.string(),
  characters: z.array(z.string()).optional().describe('unsupported_character only: each character left out, as U+XXXX'),
});
export type Warning = z.infer<typeof WarningSchema>;

/** The renderer's warning as the API states it. */
export function toWarning(warning: SlideWarning): Warning {
  return warning.code === 'unsupported_character'
    ? { code: warning.code, message: warning.message, characters: warning.characters }
    : { code: warning.code, message: warning.message };
}

export const SlideWarningSchema = WarningSchema.extend({ index: z.int().describe('the slide') });

/** A composited slide: its place, its media id and, from the media object, where to fetch it and its preview. */
const CompositedSlideSchema = z.object({
  index: z.int(),
  mediaId: z.uuid(),
  ...MediaSchema.pick({ publicUrl: true, previewUrl: true }).shape,
});

/** One network's slides: drawn in its frame, for its platforms among the request's. */
const NetworkSlidesSchema = z.object({
  provider: z.string().describe("the network (a platform's provider)"),
  platformIds: z.array(z.uuid()).describe("the request's platforms of this network: post these slides to them"),
  width: z.int().describe("the network's frame, in px"),
  height: z.int(),
  slides: z.array(CompositedSlideSchema).describe('the composited media in this frame, in index order'),
  warnings: z.array(SlideWarningSchema).describe('per slide, what was changed to draw its text in this frame'),
});

export const CompositeResultSchema = z
  .object({
    slides: z
      .array(CompositedSlideSchema)
      .describe('the composited media, in index order, each with its public and preview URLs to look at'),
    warnings: z
      .array(SlideWarningSchema)
      .describe(
        'per slide, what was changed to draw its text (shrunk to fit, characters left out); empty when nothing was',
      ),
    frames: z
      .array(NetworkSlidesSchema)
      .optional()
      .describe(
        "only when platformIds was sent: each network's slides, one entry per network in the order platformIds first names them; slides and warnings above are the first entry's",
      ),
  })
  .meta({ id: 'CompositeResult' });
export type CompositeResult = z.infer<typeof CompositeResultSchema>;
