import { randomUUID } from 'node:crypto';
import type { CoreDeps, Scope } from '../context.js';
import { refundCredit, spendCredit } from '../credits/credits.js';
import { getAiSettings } from '../tenancy/ai-settings-update.js';
import type { CaptionInput, CaptionResult } from './caption-schema.js';
import { pickHookExamples } from './hook-examples.js';
import { writeCaptions } from './write-captions.js';

/**
 * Writes a carousel's captions with the workspace's AI settings. The caption credit is spent before
 * the model is called (so a used-up pool answers 402 at once and concurrent calls can never overspend)
 * and given back when no captions come of it. With top hooks on (the request's `useTopHooks`, else
 * the workspace default) the model is shown the workspace's best hooks, and the answer says which.
 */
export async function captionSlides(deps: CoreDeps, scope: Scope, input: CaptionInput): Promise<CaptionResult> {
  const settings = await getAiSettings(deps, scope);
  const language = input.language ?? settings.defaultLanguage;
  const hookExamples = await pickHookExamples(deps, scope, input.useTopHooks ?? settings.defaultUseTopHooks, language);
  const spend = await spendCredit(deps, scope, 'caption', `caption:${randomUUID()}`);
  try {
    const written = await writeCaptions(deps.ai.provider, {
      topic: input.topic,
      slideCount: input.slideCount,
      language,
      slideLength: input.slideLength ?? settings.defaultSlideLength,
      imagePrompts: input.imagePrompt,
      systemPrompt: settings.systemPrompt,
      knowledgeBase: settings.knowledgeBase,
      exampleHooks: hookExamples.hooks,
    });
    return { ...written, hookExamples };
  } catch (error) {
    await refundCredit(deps, spend);
    throw error;
  }
}
