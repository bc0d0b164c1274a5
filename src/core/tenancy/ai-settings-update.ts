import { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import type { AiSettings } from './documents.js';
import { AppError, notFound } from '../errors.js';
import { roleOf } from '../identity/memberships.js';
import { DEFAULT_AI_SETTINGS } from './ai-settings.js';
import { auditAiSettingsChange } from './ai-settings-audit.js';

/** The languages with first-class support (spec, slides/caption); other ISO codes pass through. */
export const FIRST_CLASS_LANGUAGES = Object.freeze([
  'en',
  'vi',
  'ja',
  'ko',
  'zh',
  'es',
  'fr',
  'de',
  'pt',
  'id',
] as const);
export const SLIDE_LENGTHS = Object.freeze(['short', 'medium', 'long'] as const);
export const TEXT_STYLES = Object.freeze(['primary-sans', 'anton', 'montserrat', 'poppins', 'league-spartan'] as const);
export const CAPTION_SIZES = Object.freeze(['small', 'medium', 'large'] as const);
export const TOP_HOOKS_CHOICES = Object.freeze(['off', 'on'] as const);

/** Generous bounds: both go into every AI prompt, so they must stay within a model's context. */
export const SYSTEM_PROMPT_MAX = 8_000;
export const KNOWLEDGE_BASE_MAX = 50_000;

/**
 * The AI settings of spec 1.5 as an owner submits them. Every adapter (web form, a future
 * admin tool) validates with this one schema. Line endings are normalized so a browser's CRLF
 * does not count double against the limits.
 */
export const AiSettingsInputSchema = z.object({
  systemPrompt: z
    .string()
    .transform((text) => text.replace(/\r\n?/g, '\n').trim())
    .pipe(z.string().max(SYSTEM_PROMPT_MAX, { message: `must be at most ${SYSTEM_PROMPT_MAX} characters` })),
  knowledgeBase: z
    .string()
    .transform((text) => text.replace(/\r\n?/g, '\n').trim())
    .pipe(z.string().max(KNOWLEDGE_BASE_MAX, { message: `must be at most ${KNOWLEDGE_BASE_MAX} characters` })),
  defaultLanguage: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { message: 'must be a language code such as en, pt-BR or zh-Hant' }),
  defaultSlideLength: z.enum(SLIDE_LENGTHS, { message: 'must be short, medium or long' }),
  defaultTextStyle: z.enum(TEXT_STYLES, { message: `must be one of ${TEXT_STYLES.join(', ')}` }),
  defaultCaptionSize: z.enum(CAPTION_SIZES, { message: 'must be small, medium or large' }),
  // On or off as a form's select sends it; a client that predates the setting leaves it off.
  defaultUseTopHooks: z
    .enum(TOP_HOOKS_CHOICES, { message: 'must be on or off' })
    .default('off')
    .transform((choice) => choice === 'on'),
});
export type AiSettingsInput = z.infer<typeof AiSettingsInputSchema>;

/** The scope's workspace AI settings; defaults fill anything an older document lacks. */
export async function getAiSettings(deps: CoreDeps, scope: Scope): Promise<AiSettings> {
  const workspace = await deps.db.workspaces.findOne({ _id: scope.workspaceId }, { projection: { ai: 1 } });
  if (!workspace) throw notFound('Workspace');
  return { ...DEFAULT_AI_SETTINGS, ...workspace.ai };
}

/**
 * Replaces the scope's workspace AI settings. Only owners (or the system) may: the system
 * prompt steers every generation the workspace pays for. Returns the stored settings.
 */
export async function updateAiSettings(deps: CoreDeps, scope: Scope, input: AiSettingsInput): Promise<AiSettings> {
  if (scope.actor.type !== 'system' && (await roleOf(deps, scope)) !== 'owner') {
    throw new AppError('forbidden', 'Only an owner of this workspace can change its AI settings');
  }
  const settings: AiSettings = {
    systemPrompt: input.systemPrompt,
    knowledgeBase: input.knowledgeBase,
    // Language subtags are case-insensitive (BCP 47); store the conventional casing of the first.
    defaultLanguage: input.defaultLanguage.replace(/^[A-Za-z]+/, (primary) => primary.toLowerCase()),
    defaultSlideLength: input.defaultSlideLength,
    defaultTextStyle: input.defaultTextStyle,
    defaultCaptionSize: input.defaultCaptionSize,
    defaultUseTopHooks: input.defaultUseTopHooks,
  };
  const before = await getAiSettings(deps, scope);
  const result = await deps.db.workspaces.updateOne(
    { _id: scope.workspaceId },
    { $set: { ai: settings, updatedAt: deps.now() } },
  );
  if (result.matchedCount === 0) throw notFound('Workspace');
  deps.logger.info({ workspaceId: scope.workspaceId }, 'workspace AI settings updated');
  await auditAiSettingsChange(deps, scope, before, settings);
  return settings;
}
