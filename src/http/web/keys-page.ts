import type { Router } from '@koa/router';
import { listApiKeys, revokeApiKey, type ApiKeyView } from '../../core/auth/api-keys.js';
import { notFound } from '../../core/errors.js';
import type { AppState } from '../shared/context.js';
import { redirect } from './auth-pages.js';
import { csrfField, hidden, notice } from './forms.js';
import { markup, type SafeHtml } from './html.js';
import { sendPage, when } from './layout.js';
import type { WebOptions } from './options.js';
import { readCheckedForm, signedInPage } from './page-context.js';
import { IdParamSchema, WorkspaceFormSchema } from './schema.js';
import { renderTable } from './table.js';
import { workspaceParam } from './workspace.js';

/** Confirmations a redirect may ask for: fixed texts, so nothing from the URL is echoed. */
const NOTICES: Partial<Record<string, string>> = { revoked: 'The key was revoked. Calls made with it now fail.' };

/**
 * The current workspace's API keys (name, prefix, created, last used, revoked) with a Revoke
 * button each. Any member may revoke: stopping a leaked key must not wait for an owner.
 */
export function registerKeysPages(router: Router<AppState>, options: WebOptions): void {
  const { deps } = options;

  router.get('/keys', async (ctx) => {
    const page = await signedInPage(ctx, options, 'keys', workspaceParam(ctx));
    const keys = await listApiKeys(deps, page.scope);
    const done = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
    sendPage(ctx, {
      title: 'API keys',
      chrome: page.chrome,
      main: markup`<h1>API keys of ${page.workspace.name}</h1>
        ${notice(done, 'success')}
        <p class="muted">
          Keys are created by approving a device: run <code>postdeck login</code> on the machine that needs one. A key
          shows here by its first characters only; the full key was shown once, to the device.
        </p>
        <p><a href="/webhooks?ws=${page.workspace.workspaceId}">Webhooks</a>: send this workspace's events to your own service.</p>
        ${keyTable(keys, page.csrf, page.workspace.workspaceId)}`,
    });
  });

  router.post('/keys/:id/revoke', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const keyId = IdParamSchema.safeParse(ctx.params.id);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!keyId.success || !workspace.success) throw notFound('API key');
    const page = await signedInPage(ctx, options, 'keys', workspace.data.workspaceId);
    await revokeApiKey(deps, page.scope, keyId.data);
    redirect(ctx, `/keys?ws=${page.workspace.workspaceId}&notice=revoked`);
  });
}

const ACTIVE = markup`<span class="badge">Active</span>`;

const NO_KEYS = markup`<div class="card">
  <p>This workspace has no API keys yet.</p>
  <p><a href="/device">Approve a device</a> to create one.</p>
</div>`;

function keyTable(keys: ApiKeyView[], csrf: string, workspaceId: string): SafeHtml {
  return renderTable({
    caption: `${keys.length === 1 ? '1 key' : `${keys.length} keys`}, newest first`,
    empty: NO_KEYS,
    rows: keys,
    columns: [
      { header: 'Name', cell: (key) => key.name },
      { header: 'Key', cell: (key) => markup`<code>${key.prefix}…</code>` },
      { header: 'Created', cell: (key) => when(key.createdAt) },
      { header: 'Last used', cell: (key) => when(key.lastUsedAt) },
      {
        header: 'Status',
        cell: (key) => (key.revokedAt ? markup`<span class="badge off">Revoked</span> ${when(key.revokedAt)}` : ACTIVE),
      },
      {
        header: 'Action',
        mutedHeader: true,
        cell: (key) =>
          key.revokedAt
            ? ''
            : markup`<form class="inline" method="post" action="/keys/${key.id}/revoke">
                ${csrfField(csrf)}${hidden('workspaceId', workspaceId)}
                <button type="submit" class="danger small" aria-label="Revoke ${key.name} (${key.prefix})">
                  Revoke
                </button>
              </form>`,
      },
    ],
  });
}
