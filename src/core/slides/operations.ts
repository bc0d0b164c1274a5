import { defineOperation } from '../operations/operation.js';
import { CaptionInputSchema, CaptionResultSchema } from './caption-schema.js';
import { captionSlides } from './caption-slides.js';
import { checkCompositeInput, CompositeInputSchema, CompositeResultSchema } from './composite-schema.js';
import { compositeSlides } from './composite-slides.js';
import { getGenerationJob } from './generation/get-job.js';
import {
  checkGenerateInput,
  GenerateAcceptedSchema,
  GenerateInputSchema,
  GenerationJobIdInputSchema,
  GenerationJobSchema,
} from './generation/schema.js';
import { submitGeneration } from './generation/submit.js';

export const generateCaptionsOperation = defineOperation({
  name: 'generate_captions',
  title: 'Write slide captions',
  summary:
    "Write a carousel's post caption and one caption per slide (index 0 the hook), optionally with image prompts; spends 1 caption credit",
  input: CaptionInputSchema,
  output: CaptionResultSchema,
  result: 'the overall caption and the slides in order',
  errors: [
    'invalid_request',
    'ai_credit_limit_reached',
    'content_blocked',
    'rate_limited',
    'ai_quota_exhausted',
    'provider_error',
  ],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  run: (deps, scope, input) => captionSlides(deps, scope, input),
});

export const compositeSlidesOperation = defineOperation({
  name: 'composite_slides',
  title: 'Bake captions onto slides',
  summary:
    "Draw each caption onto its uploaded image in TikTok's look, inside the safe zone, as new media in order; with platformIds, once per network in that network's frame (TikTok 9:16, an Instagram carousel 4:5); spends no credits",
  input: CompositeInputSchema,
  check: checkCompositeInput,
  output: CompositeResultSchema,
  result:
    "the new composited media in index order (each id with its publicUrl and previewUrl, to look at without another call), and per-slide warnings (text shrunk to fit, characters no font draws left out); with platformIds, frames gives each network's slides, to post to that network's platforms",
  errors: ['invalid_request', 'not_found', 'invalid_media_file', 'server_busy'],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: (deps, scope, input) => compositeSlides(deps, scope, input),
});

export const generateSlideshowOperation = defineOperation({
  name: 'generate_slideshow',
  title: 'Generate a slideshow',
  summary:
    "Queue a slideshow for TikTok and Instagram accounts alike: captions (topic) or given slides, one AI image per slide generated once and framed per network (TikTok 9:16, an Instagram carousel 4:5, the caption laid out in each frame), then one post group per platform with its network's slides; settings work as in create_post (each network takes the keys its schema declares); poll the job",
  input: GenerateInputSchema,
  check: checkGenerateInput,
  output: GenerateAcceptedSchema,
  result: 'the queued job (WAITING) and how many images it will generate',
  errors: [
    'invalid_request',
    'not_found',
    'conflict',
    'ai_image_limit_reached',
    'ai_credit_limit_reached',
    'rate_limited',
    'provider_error',
  ],
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  run: (deps, scope, input) => submitGeneration(deps, scope, input),
});

export const getGenerationJobOperation = defineOperation({
  name: 'get_generation_job',
  title: 'Get a generation job',
  summary: 'Read a slideshow job: status, stage, images completed of total, and the post group once DONE',
  input: GenerationJobIdInputSchema,
  output: GenerationJobSchema,
  result: 'the job',
  errors: ['not_found'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => getGenerationJob(deps, scope, input.id),
});

/** The slides operations, in the order the API reference lists them. */
export const slideOperations = [
  generateCaptionsOperation,
  compositeSlidesOperation,
  generateSlideshowOperation,
  getGenerationJobOperation,
] as const;
