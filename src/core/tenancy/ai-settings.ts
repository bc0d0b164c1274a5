import type { AiSettings } from './documents.js';

/** The AI settings a new workspace starts with (spec 1.5); owners change them in the web app. */
export const DEFAULT_AI_SETTINGS: AiSettings = Object.freeze({
  systemPrompt: '',
  knowledgeBase: '',
  defaultLanguage: 'en',
  defaultSlideLength: 'medium',
  defaultTextStyle: 'primary-sans',
  defaultCaptionSize: 'medium',
  defaultUseTopHooks: false,
});
