import type { Router } from '@koa/router';
import { AUDIT_ACTIONS } from '../../core/audit/documents.js';
import { listAuditEntriesOperation } from '../../core/audit/operations.js';
import { listApiKeys } from '../../core/auth/api-keys.js';
import { listMembers } from '../../core/identity/memberships.js';
import { invokeOperation } from '../../core/operations/invoke.js';
import type { AppState } from '../shared/context.js';
import { auditView } from './audit-view.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { signedInPage } from './page-context.js';
import { workspaceParam } from './workspace.js';

const PAGE_SIZE = 50;

/**
 * The workspace's audit trail (the same entries as GET /public/v1/audit), for its owners: the
 * operation refuses anyone else with 403.
 */
export function registerAuditPages(router: Router<AppState>, options: WebOptions): void {
  const { deps } = options;
  router.get('/audit', async (ctx) => {
    const page = await signedInPage(ctx, options, 'members', workspaceParam(ctx));
    const action = AUDIT_ACTIONS.find((a) => a === ctx.query.action);
    const cursor = typeof ctx.query.cursor === 'string' && ctx.query.cursor !== '' ? ctx.query.cursor : undefined;
    const result = await invokeOperation(deps, page.scope, listAuditEntriesOperation, {
      limit: PAGE_SIZE,
      ...(action ? { action } : {}),
      ...(cursor ? { cursor } : {}),
    });
    const members = await listMembers(deps, page.scope);
    const keys = await listApiKeys(deps, page.scope);
    const older = new URLSearchParams({ ws: page.workspace.workspaceId, ...(action ? { action } : {}) });
    if (result.nextCursor) older.set('cursor', result.nextCursor);
    sendPage(ctx, {
      title: 'Audit trail',
      chrome: page.chrome,
      main: auditView({
        workspaceId: page.workspace.workspaceId,
        workspaceName: page.workspace.name,
        entries: result.entries,
        action,
        userNames: new Map(members.map((m) => [m.userId, m.name])),
        keyNames: new Map(keys.map((k) => [k.id, k.name])),
        networkNames: new Map(deps.providers.all().map((p) => [p.id, p.name])),
        olderHref: result.nextCursor ? `/audit?${older.toString()}` : undefined,
      }),
    });
  });
}
