import type { Router } from '@koa/router';
import { AppError, notFound } from '../../core/errors.js';
import { invokeOperation } from '../../core/operations/invoke.js';
import { WEBHOOK_EVENTS } from '../../core/webhooks/documents.js';
import {
  createWebhookOperation,
  deleteWebhookOperation,
  listWebhookDeliveriesOperation,
  listWebhooksOperation,
  redeliverWebhookOperation,
  sendTestWebhookOperation,
} from '../../core/webhooks/operations.js';
import type { CoreDeps, Scope } from '../../core/context.js';
import type { AppState } from '../shared/context.js';
import { redirect } from './auth-pages.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { readCheckedForm, signedInPage } from './page-context.js';
import { IdParamSchema, WorkspaceFormSchema } from './schema.js';
import { webhooksView, type AddForm, type EndpointWithLog } from './webhooks-view.js';
import { workspaceParam } from './workspace.js';

/** Deliveries shown under each endpoint. */
const LAST_DELIVERIES = 5;

/** What the page says after a button's action, by the `notice` it is redirected with. */
const NOTICES: Record<string, string> = {
  deleted: 'The endpoint was deleted. Nothing more is sent to it.',
  tested: 'A webhook.test event is on its way; reload to see how the endpoint answered.',
  redelivered: 'The delivery is being sent again; reload to see how the endpoint answered.',
};

/**
 * The workspace's webhook endpoints with their last deliveries, a form to add one (its signing secret
 * shown once, on the page that answers the form), Send test event and Delete buttons each, and a
 * Redeliver button on each delivery; all through the operations.
 * Under the API keys section (linked from that page): a tenth header link would wrap a phone's header
 * to a third row.
 */
export function registerWebhooksPages(router: Router<AppState>, options: WebOptions): void {
  const { deps } = options;

  router.get('/webhooks', async (ctx) => {
    const page = await signedInPage(ctx, options, 'keys', workspaceParam(ctx));
    const shown = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
    sendPage(ctx, {
      title: 'Webhooks',
      chrome: page.chrome,
      main: webhooksView({
        csrf: page.csrf,
        workspaceId: page.workspace.workspaceId,
        workspaceName: page.workspace.name,
        endpoints: await endpointsWithLogs(deps, page.scope),
        form: { url: '', events: [...WEBHOOK_EVENTS] },
        ...(shown ? { notice: shown } : {}),
      }),
    });
  });

  router.post('/webhooks', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!workspace.success) throw notFound('Workspace');
    const page = await signedInPage(ctx, options, 'keys', workspace.data.workspaceId);
    const added: AddForm = { url: form.url ?? '', events: WEBHOOK_EVENTS.filter((event) => form[`event:${event}`]) };
    let secret: string | undefined;
    let errors: Record<string, string> | undefined;
    try {
      secret = (await invokeOperation(deps, page.scope, createWebhookOperation, added)).secret;
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'invalid_request') throw error;
      errors = Object.fromEntries((error.details ?? []).map((detail) => [String(detail.path[0]), detail.message]));
    }
    sendPage(ctx, {
      title: 'Webhooks',
      chrome: page.chrome,
      status: errors ? 400 : 201,
      main: webhooksView({
        csrf: page.csrf,
        workspaceId: page.workspace.workspaceId,
        workspaceName: page.workspace.name,
        endpoints: await endpointsWithLogs(deps, page.scope),
        form: errors ? added : { url: '', events: [...WEBHOOK_EVENTS] },
        ...(errors ? { errors } : {}),
        ...(secret ? { secret } : {}),
      }),
    });
  });

  router.post('/webhooks/:id/delete', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const id = IdParamSchema.safeParse(ctx.params.id);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!id.success || !workspace.success) throw notFound('Webhook endpoint');
    const page = await signedInPage(ctx, options, 'keys', workspace.data.workspaceId);
    await invokeOperation(deps, page.scope, deleteWebhookOperation, { id: id.data });
    redirect(ctx, `/webhooks?ws=${page.workspace.workspaceId}&notice=deleted`);
  });

  router.post('/webhooks/:id/test', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const id = IdParamSchema.safeParse(ctx.params.id);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!id.success || !workspace.success) throw notFound('Webhook endpoint');
    const page = await signedInPage(ctx, options, 'keys', workspace.data.workspaceId);
    await invokeOperation(deps, page.scope, sendTestWebhookOperation, { id: id.data });
    redirect(ctx, `/webhooks?ws=${page.workspace.workspaceId}&notice=tested`);
  });

  router.post('/webhooks/:id/deliveries/:deliveryId/redeliver', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const id = IdParamSchema.safeParse(ctx.params.id);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!id.success || !workspace.success) throw notFound('Webhook endpoint');
    const page = await signedInPage(ctx, options, 'keys', workspace.data.workspaceId);
    const input = { id: id.data, deliveryId: ctx.params.deliveryId ?? '' };
    await invokeOperation(deps, page.scope, redeliverWebhookOperation, input);
    redirect(ctx, `/webhooks?ws=${page.workspace.workspaceId}&notice=redelivered`);
  });
}

async function endpointsWithLogs(deps: CoreDeps, scope: Scope): Promise<EndpointWithLog[]> {
  const { webhooks } = await invokeOperation(deps, scope, listWebhooksOperation, {});
  return Promise.all(
    webhooks.map(async (endpoint) => ({
      endpoint,
      deliveries: (
        await invokeOperation(deps, scope, listWebhookDeliveriesOperation, { id: endpoint.id, limit: LAST_DELIVERIES })
      ).deliveries,
    })),
  );
}
