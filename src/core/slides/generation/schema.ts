import { z } from 'zod';
import type { IssueDetail } from '../../errors.js';
import { requireVisible } from '../../operations/visible-text.js';
import {
  CreatePostsInputSchema,
  requireTimeToSchedule,
  SCHEDULE_NEEDS_TIME,
  SETTINGS_RULES,
} from '../../posts/schema.js';
import { SlideCountSchema, TopicSchema } from '../caption-schema.js';
import { SlideWarningSchema, UNIQUE_INDEXES } from '../composite-schema.js';
import { HookExamplesSchema, UseTopHooksSchema } from '../hook-examples-schema.js';
import { LanguageSchema } from '../languages.js';
import { CAPTION_SIZES, TEXT_EFFECTS, TEXT_STYLE_IDS } from '../render/index.js';
import { MAX_CAPTION_CHARS, SlideLengthSchema } from '../slide-length.js';
import { strictSlidesInput } from '../workspace-input.js';

/** Slides a job may generate: one AI image each, so the same bound as the caption endpoint's slideCount. */
export const MAX_GENERATED_SLIDES = 10;

const GivenSlideSchema = z.object({
  index: z
    .int()
    .min(0)
    .max(MAX_GENERATED_SLIDES - 1)
    .describe('0-based order; 0 is the hook'),
  caption: requireVisible(z.string().max(MAX_CAPTION_CHARS), 'the caption')
    .trim()
    .describe('baked onto the generated image'),
  imagePrompt: requireVisible(z.string().max(4000), 'the image prompt')
    .trim()
    .describe("a self-contained prompt for the slide's image"),
});

export const GenerateInputSchema = strictSlidesInput({
  platformIds: CreatePostsInputSchema.shape.platformIds,
  topic: TopicSchema.optional().describe('required unless slides is given; spends 1 caption credit'),
  slideCount: SlideCountSchema.optional().describe('topic path only; default 6'),
  language: LanguageSchema.optional().describe("topic path: the captions' language; omitted: the workspace default"),
  slideLength: SlideLengthSchema.optional().describe(
    'topic path only: short, medium, long; omitted: the workspace default',
  ),
  useTopHooks: UseTopHooksSchema.describe(
    "topic path only: show the model the workspace's best hooks in the captions' language (ranked by views at 48 hours) as examples; omitted: the workspace's AI setting, else false",
  ),
  content: z
    .string()
    .max(4000)
    .optional()
    .describe('the post caption; topic path: omitted uses the generated one; slides path: omitted posts none'),
  slides: z
    .array(GivenSlideSchema)
    .min(1)
    .max(MAX_GENERATED_SLIDES)
    .meta(UNIQUE_INDEXES)
    .optional()
    .describe(
      'required unless topic is given: pre-written slides, each with caption and imagePrompt; each index at most once',
    ),
  mode: CreatePostsInputSchema.shape.mode.describe('draft (recommended), schedule or now'),
  scheduledFor: CreatePostsInputSchema.shape.scheduledFor,
  textStyleId: z.enum(TEXT_STYLE_IDS).optional().describe('caption font; omitted: the workspace default'),
  captionSize: z.enum(CAPTION_SIZES).optional().describe('omitted: the workspace default, else medium'),
  textEffect: z
    .enum(TEXT_EFFECTS)
    .optional()
    .describe('outline (default): white text, dark outline; box: dark text on a white box'),
  settings: CreatePostsInputSchema.shape.settings.describe(
    `the created post's provider settings; default {}; ${SETTINGS_RULES}`,
  ),
}).meta({
  allOf: [
    { oneOf: [{ required: ['topic'] }, { required: ['slides'] }], description: 'exactly one of topic or slides' },
    {
      if: { required: ['slides'] },
      then: { properties: { slideCount: false, slideLength: false, useTopHooks: false } },
      description: 'slideCount, slideLength and useTopHooks apply to the topic path only',
    },
    SCHEDULE_NEEDS_TIME,
  ],
});
export type GenerateInput = z.output<typeof GenerateInputSchema>;

/**
 * The rules across fields: exactly one of topic or slides, topic-only fields, unique indexes, a time
 * to schedule. The input's schema states each (its allOf, the slides' `x-unique-by`).
 */
export function checkGenerateInput(input: GenerateInput): IssueDetail[] {
  const issues: IssueDetail[] = [];
  const hasTopic = input.topic !== undefined;
  const hasSlides = input.slides !== undefined;
  if (hasTopic === hasSlides) {
    issues.push({ path: hasTopic ? ['slides'] : ['topic'], message: 'give exactly one of topic or slides' });
  }
  if (hasSlides) {
    for (const field of ['slideCount', 'slideLength', 'useTopHooks'] as const) {
      if (input[field] !== undefined)
        issues.push({ path: [field], message: `${field} applies to the topic path only` });
    }
    const seen = new Set<number>();
    input.slides?.forEach((slide, position) => {
      if (seen.has(slide.index))
        issues.push({ path: ['slides', position, 'index'], message: `index ${slide.index} is given twice` });
      seen.add(slide.index);
    });
  }
  return [...issues, ...requireTimeToSchedule(input)];
}

export const GenerationJobSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['WAITING', 'PROCESSING', 'DONE', 'FAILED']),
    stage: z
      .enum(['queued', 'writing_captions', 'generating_images', 'creating_post', 'done', 'failed'])
      .describe('where the job is; only moves forward'),
    total: z.int().describe('images in the batch (one per slide)'),
    completed: z.int().describe('images generated and uploaded so far; only grows'),
    postId: z
      .uuid()
      .nullable()
      .describe("the created root post's id once DONE (the first platform's): open it with get post"),
    postIds: z.array(z.uuid()).describe('the root post of every created post group, in the order of postGroupIds'),
    postGroupId: z
      .uuid()
      .nullable()
      .describe("the created post's group id once DONE (the first platform's); get post takes it too"),
    postGroupIds: z.array(z.uuid()).describe('every created post group, one per platform'),
    error: z.string().nullable().describe('why the job failed, naming the slide when one did'),
    errorCode: z.string().nullable().describe('the failure as a stable code (e.g. content_blocked, provider_error)'),
    failedSlideIndex: z.int().nullable(),
    hookExamples: HookExamplesSchema.nullable().describe(
      "topic path: whether the captions learned from the workspace's top hooks and which the model was shown (or why none); null on the slides path",
    ),
    warnings: z
      .array(
        SlideWarningSchema.extend({
          provider: z
            .string()
            .optional()
            .describe('only when the job drew its slides for several networks: the network whose frame this is about'),
        }),
      )
      .describe(
        'per composited slide, what was changed to draw its text (shrunk to fit, characters left out); empty when nothing was',
      ),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'GenerationJob' });
export type GenerationJob = z.infer<typeof GenerationJobSchema>;

export const GenerateAcceptedSchema = z
  .object({
    jobId: z.uuid().describe('poll get generation job with it'),
    status: z.literal('WAITING'),
    total: z.int().describe('images the job will generate'),
  })
  .meta({ id: 'GenerationAccepted' });

/**
 * Any string, however long: an id that is not one of this workspace's jobs is simply not found
 * (spec 4), never a validation error the path parameter's schema does not state.
 */
export const GenerationJobIdInputSchema = z.object({
  id: z.string().min(1).describe('the jobId returned by generate'),
});
