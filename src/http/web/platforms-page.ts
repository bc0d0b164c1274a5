import type { Router } from '@koa/router';
import { z } from 'zod';
import type { CoreDeps } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { authenticateSession } from '../../core/identity/sessions.js';
import { disconnectPlatform } from '../../core/platforms/disconnect-platform.js';
import { listAllPlatforms } from '../../core/platforms/list-platforms.js';
import type { ConnectOutcome, Provider } from '../../core/providers/port.js';
import { tiktokHttpOf } from '../../core/providers/tiktok/index.js';
import type { AppContext, AppState } from '../shared/context.js';
import { redirect } from './auth-pages.js';
import { SESSION_COOKIE, readCookie } from './cookies.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { readCheckedForm, signedInPage } from './page-context.js';
import { platformsView } from './platforms-view.js';
import { IdParamSchema, WorkspaceFormSchema } from './schema.js';
import { PAGE_CSP } from './security-headers.js';
import { requireWebUser } from './session.js';
import { workspaceParam } from './workspace.js';

/** Confirmations a redirect may ask for: fixed texts naming a registered network, so nothing from the URL is echoed. */
const NOTICES: Partial<Record<string, (network: string) => string>> = {
  connected: (n) => `The ${n} account is connected.`,
  reconnected: (n) => `The ${n} account was connected again; its permissions and tokens are up to date.`,
  disconnected: (n) => `The ${n} account was disconnected. Postdeck no longer holds its tokens.`,
};
const PROBLEMS: Partial<Record<string, (network: string) => string>> = {
  cancelled: (n) => `${n} did not connect the account: the permission request was cancelled or denied.`,
  // TikTok refuses the whole consent request for a scope the app is not approved for (contract 8.3).
  scope_refused: () =>
    "TikTok refused the permissions Postdeck asked for (invalid_scope). If the server's TikTok app lacks the Display API product (analytics), add it in TikTok's developer portal, or set TIKTOK_ANALYTICS=false to connect accounts without analytics.",
};

const CallbackQuerySchema = z.object({
  state: z.string().max(200).default(''),
  code: z.string().max(2000).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
});

/**
 * The workspace's social accounts (`/platforms`): every account of every network with its state, a Connect
 * button per network (a form that sends the browser to the network's consent page), Reconnect and Disconnect;
 * and the OAuth callbacks (`/platforms/<network>/callback`). Any member may connect and disconnect accounts.
 */
export function registerPlatformsPages(router: Router<AppState>, options: WebOptions): void {
  const { deps } = options;

  router.get('/platforms', async (ctx) => {
    const page = await signedInPage(ctx, options, 'platforms', workspaceParam(ctx));
    const accounts = await listAllPlatforms(deps, page.scope);
    const key = typeof ctx.query.notice === 'string' ? ctx.query.notice : '';
    const named = deps.providers.all().find((p) => p.id === ctx.query.network)?.name ?? 'TikTok';
    const networks = deps.providers.all();
    // The Connect forms' answers redirect to the networks' consent pages, which `form-action` must allow.
    const origins = [...new Set(networks.map((p) => p.connect.consentOrigin))].join(' ');
    ctx.set('Content-Security-Policy', PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${origins}`));
    sendPage(ctx, {
      title: 'Social accounts',
      chrome: page.chrome,
      main: platformsView({
        csrf: page.csrf,
        workspaceId: page.workspace.workspaceId,
        workspaceName: page.workspace.name,
        accounts,
        networks: networks.map((p) => ({
          id: p.id,
          name: p.name,
          emulated: p.connect.emulated,
          warning: p.connect.setupWarning(deps),
        })),
        analyticsEnabled: tiktokHttpOf(deps).config.analytics !== false,
        done: NOTICES[key]?.(named),
        problem: PROBLEMS[key]?.(named),
      }),
    });
  });

  router.post('/platforms/:provider/connect', async (ctx) => {
    const provider = providerOf(deps, ctx.params.provider);
    const form = await readCheckedForm(ctx, options);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!workspace.success) throw notFound('Workspace');
    const page = await signedInPage(ctx, options, 'platforms', workspace.data.workspaceId);
    const started = await provider.connect.start(deps, page.scope, { binding: await sessionBinding(deps, ctx) });
    redirect(ctx, started.authorizeUrl);
  });

  router.get('/platforms/:provider/callback', async (ctx) => {
    const provider = providerOf(deps, ctx.params.provider);
    await requireWebUser(deps, ctx, options.secureCookies);
    // A malformed callback has no usable state, which core refuses like an unknown one.
    const query = CallbackQuerySchema.safeParse(ctx.query);
    const q = query.success ? query.data : { state: '' };
    const result = await provider.connect.complete(
      deps,
      { state: q.state, code: q.code, error: q.error, errorDescription: q.error_description },
      await sessionBinding(deps, ctx),
    );
    redirect(ctx, `/platforms?ws=${result.workspaceId}&network=${provider.id}&notice=${noticeOf(result)}`);
  });

  router.post('/platforms/:id/disconnect', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const platformId = IdParamSchema.safeParse(ctx.params.id);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!platformId.success || !workspace.success) throw notFound('Platform');
    const page = await signedInPage(ctx, options, 'platforms', workspace.data.workspaceId);
    const gone = await disconnectPlatform(deps, page.scope, platformId.data);
    redirect(ctx, `/platforms?ws=${page.workspace.workspaceId}&network=${gone.provider}&notice=disconnected`);
  });
}

/** The registered network a path names; any other name is a page that does not exist. */
function providerOf(deps: CoreDeps, name: string | undefined): Provider<CoreDeps> {
  const provider = deps.providers.all().find((p) => p.id === name);
  if (!provider) throw notFound('Page');
  return provider;
}

function noticeOf(result: ConnectOutcome): string {
  if (result.outcome === 'cancelled') return result.error === 'invalid_scope' ? 'scope_refused' : 'cancelled';
  return result.created ? 'connected' : 'reconnected';
}

// The OAuth state is bound to the browser session that started it: a callback arriving in another
// session (a link planted in someone else's browser) cannot complete the connection.
async function sessionBinding(deps: CoreDeps, ctx: AppContext): Promise<string> {
  const { sessionId } = await authenticateSession(deps, readCookie(ctx, SESSION_COOKIE) ?? '');
  return `session:${sessionId}`;
}
