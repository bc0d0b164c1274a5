import { z } from 'zod';
import { requireVisible } from '../operations/visible-text.js';
import { HookExamplesSchema, UseTopHooksSchema } from './hook-examples-schema.js';
import { LanguageSchema } from './languages.js';
import { MAX_CAPTION_CHARS, SlideLengthSchema } from './slide-length.js';
import { strictSlidesInput } from './workspace-input.js';

export const MIN_SLIDES = 3;
export const MAX_SLIDES = 10;
export const DEFAULT_SLIDES = 6;

export const TopicSchema = requireVisible(z.string().max(500), 'the topic')
  .trim()
  .describe('what the carousel is about; 1 to 500 characters');
export const SlideCountSchema = z.int().min(MIN_SLIDES).max(MAX_SLIDES).describe('3 to 10; default 6');

export const CaptionInputSchema = strictSlidesInput({
  topic: TopicSchema,
  slideCount: SlideCountSchema.default(DEFAULT_SLIDES),
  language: LanguageSchema.optional().describe("omitted: the workspace's default language"),
  slideLength: SlideLengthSchema.optional().describe(
    "short, medium or long; omitted: the workspace's default, else medium",
  ),
  imagePrompt: z.boolean().default(false).describe('when true, every slide also carries a self-contained imagePrompt'),
  useTopHooks: UseTopHooksSchema,
});
export type CaptionInput = z.output<typeof CaptionInputSchema>;

export const SlideCaptionSchema = z
  .object({
    index: z.int().min(0).describe('0-based; 0 is the hook'),
    caption: z.string().min(1).max(MAX_CAPTION_CHARS),
    imagePrompt: z
      .string()
      .optional()
      .describe("present when requested: a self-contained prompt for the slide's image"),
  })
  .meta({ id: 'SlideCaption' });
export type SlideCaption = z.infer<typeof SlideCaptionSchema>;

export const CaptionResultSchema = z
  .object({
    caption: z.string().describe('the overall post caption'),
    slides: z.array(SlideCaptionSchema).describe('one entry per slide, in order; index 0 is the hook'),
    hookExamples: HookExamplesSchema.describe(
      "the workspace's top hooks the model was shown as examples, or, when asked for and there were none, why",
    ),
  })
  .meta({ id: 'SlideCaptions' });
export type CaptionResult = z.infer<typeof CaptionResultSchema>;
/** What the model wrote: the answer without the examples it was shown. */
export type WrittenCaptions = Omit<CaptionResult, 'hookExamples'>;
