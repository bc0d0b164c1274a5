import type { Router } from '@koa/router';
import type { AiSettings } from '../../core/tenancy/documents.js';
import { AppError, notFound } from '../../core/errors.js';
import { roleOf } from '../../core/identity/memberships.js';
import {
  AiSettingsInputSchema,
  CAPTION_SIZES,
  FIRST_CLASS_LANGUAGES,
  KNOWLEDGE_BASE_MAX,
  SLIDE_LENGTHS,
  SYSTEM_PROMPT_MAX,
  TEXT_STYLES,
  TOP_HOOKS_CHOICES,
  getAiSettings,
  updateAiSettings,
} from '../../core/tenancy/ai-settings-update.js';
import type { AppState } from '../shared/context.js';
import { redirect } from './auth-pages.js';
import { csrfField, fieldErrors, hidden, inputField, notice, selectField, textareaField } from './forms.js';
import { markup, type SafeHtml } from './html.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { readCheckedForm, signedInPage } from './page-context.js';
import { WorkspaceFormSchema } from './schema.js';
import { workspaceParam } from './workspace.js';

const TEXT_STYLE_NAMES: Record<(typeof TEXT_STYLES)[number], string> = {
  'primary-sans': 'Primary sans',
  anton: 'Anton',
  montserrat: 'Montserrat',
  poppins: 'Poppins',
  'league-spartan': 'League Spartan',
};
const capitalized = (value: string) => value.charAt(0).toUpperCase() + value.slice(1);

/** The workspace AI settings of spec 1.5: owners edit them, members read them. */
export function registerSettingsPages(router: Router<AppState>, options: WebOptions): void {
  const { deps } = options;

  router.get('/settings', async (ctx) => {
    const page = await signedInPage(ctx, options, 'settings', workspaceParam(ctx));
    const settings = await getAiSettings(deps, page.scope);
    const canEdit = (await roleOf(deps, page.scope)) === 'owner';
    const saved = ctx.query.notice === 'saved' ? 'The AI settings were saved.' : undefined;
    sendPage(ctx, {
      title: 'AI settings',
      chrome: page.chrome,
      main: settingsView({
        csrf: page.csrf,
        workspaceId: page.workspace.workspaceId,
        workspaceName: page.workspace.name,
        aiEmulated: deps.ai.provider.emulated,
        values: formValues(settings),
        canEdit,
        saved,
      }),
    });
  });

  router.post('/settings', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!workspace.success) throw notFound('Workspace');
    const page = await signedInPage(ctx, options, 'settings', workspace.data.workspaceId);
    // Members are refused before validation, so they never see an editable form.
    if ((await roleOf(deps, page.scope)) !== 'owner') throw onlyOwners();
    const parsed = AiSettingsInputSchema.safeParse(form);
    if (!parsed.success) {
      // Show what was typed, so a too-long prompt can be shortened rather than retyped.
      const values: SettingValues = { ...formValues(await getAiSettings(deps, page.scope)), ...form };
      return sendPage(ctx, {
        title: 'AI settings',
        chrome: page.chrome,
        status: 400,
        main: settingsView({
          csrf: page.csrf,
          workspaceId: page.workspace.workspaceId,
          workspaceName: page.workspace.name,
          aiEmulated: deps.ai.provider.emulated,
          values,
          canEdit: true,
          errors: fieldErrors(parsed.error),
        }),
      });
    }
    await updateAiSettings(deps, page.scope, parsed.data);
    redirect(ctx, `/settings?ws=${page.workspace.workspaceId}&notice=saved`);
  });
}

function onlyOwners(): AppError {
  return new AppError('forbidden', 'Only an owner of this workspace can change its AI settings');
}

type SettingValues = Record<keyof AiSettings, string>;

/** The settings as the form shows them: the top-hooks switch as its select's on or off. */
function formValues(settings: AiSettings): SettingValues {
  return { ...settings, defaultUseTopHooks: settings.defaultUseTopHooks ? 'on' : 'off' };
}

interface SettingsView {
  csrf: string;
  workspaceId: string;
  workspaceName: string;
  values: SettingValues;
  canEdit: boolean;
  /** No AI provider is configured: the built-in emulator answers. */
  aiEmulated: boolean;
  errors?: Record<string, string>;
  saved?: string | undefined;
}

const AI_EMULATOR_BANNER = markup`<div class="notice info" role="status">
  <strong>AI emulator — captions and images are not from a model.</strong> No AI provider is configured
  (<code>OPENAI_API_KEY</code>), so Postdeck runs a local emulator of OpenAI: captions and slide images are
  deterministic stand-ins until a key is set.
</div>`;

const SAVE = markup`<div class="actions"><button type="submit" class="primary">Save settings</button></div>`;

function settingsView(view: SettingsView): SafeHtml {
  const errors = view.errors ?? {};
  const disabled = !view.canEdit;
  const count = Object.keys(errors).length;
  const problem =
    count === 0 ? undefined : `${count === 1 ? 'One setting needs' : `${count} settings need`} attention; see below.`;
  const options = (values: readonly string[], name: (v: string) => string = capitalized) =>
    values.map((value) => ({ value, label: name(value) }));
  return markup`<h1>AI settings of ${view.workspaceName}</h1>
    <p class="muted">
      Captions and generated slideshows use these automatically. They are never sent in an API request.
    </p>
    ${view.aiEmulated ? AI_EMULATOR_BANNER : ''}${notice(view.saved, 'success')}${notice(problem)}
    ${view.canEdit ? '' : notice('Only owners of this workspace can change these settings.', 'info')}
    <form method="post" action="/settings" class="card">
      ${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}
      ${textareaField({
        name: 'systemPrompt',
        label: 'System prompt',
        rows: 6,
        value: view.values.systemPrompt,
        error: errors.systemPrompt,
        hint: `How the AI should write for this workspace. Up to ${SYSTEM_PROMPT_MAX.toLocaleString('en')} characters.`,
        disabled,
        maxlength: SYSTEM_PROMPT_MAX,
      })}
      ${textareaField({
        name: 'knowledgeBase',
        label: 'Knowledge base',
        rows: 10,
        value: view.values.knowledgeBase,
        error: errors.knowledgeBase,
        hint: `Facts about your brand, products and audience. Up to ${KNOWLEDGE_BASE_MAX.toLocaleString('en')} characters.`,
        disabled,
        maxlength: KNOWLEDGE_BASE_MAX,
      })}
      <div class="grid2">
        ${inputField({
          name: 'defaultLanguage',
          label: 'Default language',
          value: view.values.defaultLanguage,
          error: errors.defaultLanguage,
          hint: 'An ISO code such as en, vi, ja or pt-BR.',
          disabled,
          required: true,
          maxlength: 35,
          list: 'languages',
        })}
        ${selectField({
          name: 'defaultSlideLength',
          label: 'Default slide length',
          value: view.values.defaultSlideLength,
          error: errors.defaultSlideLength,
          hint: 'How much text each slide carries.',
          options: options(SLIDE_LENGTHS),
          disabled,
        })}
        ${selectField({
          name: 'defaultTextStyle',
          label: 'Default text style',
          value: view.values.defaultTextStyle,
          error: errors.defaultTextStyle,
          hint: 'The font captions are baked onto slides in.',
          options: options(TEXT_STYLES, (v) => TEXT_STYLE_NAMES[v as (typeof TEXT_STYLES)[number]]),
          disabled,
        })}
        ${selectField({
          name: 'defaultCaptionSize',
          label: 'Default caption size',
          value: view.values.defaultCaptionSize,
          error: errors.defaultCaptionSize,
          hint: 'How large those captions are.',
          options: options(CAPTION_SIZES),
          disabled,
        })}
        ${selectField({
          name: 'defaultUseTopHooks',
          label: 'Learn from top hooks',
          value: view.values.defaultUseTopHooks,
          error: errors.defaultUseTopHooks,
          hint: 'Show the AI your best hooks (views at 48 hours) as examples, unless a request says otherwise.',
          options: options(TOP_HOOKS_CHOICES),
          disabled,
        })}
      </div>
      <datalist id="languages">
        ${FIRST_CLASS_LANGUAGES.map((code) => markup`<option value="${code}"></option>`)}
      </datalist>
      ${view.canEdit ? SAVE : ''}
    </form>`;
}
