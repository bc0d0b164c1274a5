import type { Router } from '@koa/router';
import { createInvitation, listInvitations, revokeInvitation } from '../../core/identity/invitations.js';
import { listMembers, roleOf } from '../../core/identity/memberships.js';
import { AppError, notFound } from '../../core/errors.js';
import type { AppContext, AppState } from '../shared/context.js';
import { redirect } from './auth-pages.js';
import { fieldErrors } from './forms.js';
import { sendPage } from './layout.js';
import { membersView, type MembersView } from './members-view.js';
import type { WebOptions } from './options.js';
import { readCheckedForm, signedInPage, type SignedInPage } from './page-context.js';
import { IdParamSchema, InviteFormSchema, WorkspaceFormSchema } from './schema.js';
import { workspaceParam } from './workspace.js';

const NOTICES: Partial<Record<string, string>> = {
  joined: 'Welcome! You joined this workspace.',
  'invitation-revoked': 'The invitation was withdrawn; its link no longer works.',
};

/**
 * The members of the current workspace. Owners also see open invitations, create invite
 * links (each shown once, right after it is made) and withdraw them; core enforces that.
 */
export function registerMembersPages(router: Router<AppState>, options: WebOptions): void {
  const { deps } = options;

  router.get('/members', async (ctx) => {
    const page = await signedInPage(ctx, options, 'members', workspaceParam(ctx));
    const done = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
    await render(ctx, options, page, { saved: done });
  });

  router.post('/members/invitations', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!workspace.success) throw notFound('Workspace');
    const page = await signedInPage(ctx, options, 'members', workspace.data.workspaceId);
    // Members are refused before validation, so they never get the owners' form back.
    if ((await roleOf(deps, page.scope)) !== 'owner') {
      throw new AppError('forbidden', 'Only an owner of this workspace can manage invitations');
    }
    const parsed = InviteFormSchema.safeParse(form);
    if (!parsed.success) {
      return render(ctx, options, page, { errors: fieldErrors(parsed.error), values: form }, 400);
    }
    const { token, invitation } = await createInvitation(deps, page.scope, parsed.data);
    const link = `${options.publicUrl.replace(/\/+$/, '')}/invite?token=${encodeURIComponent(token)}`;
    await render(ctx, options, page, { created: { link, invitation } }, 201);
  });

  router.post('/members/invitations/:id/revoke', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const invitationId = IdParamSchema.safeParse(ctx.params.id);
    const workspace = WorkspaceFormSchema.safeParse(form);
    if (!invitationId.success || !workspace.success) throw notFound('Invitation');
    const page = await signedInPage(ctx, options, 'members', workspace.data.workspaceId);
    await revokeInvitation(deps, page.scope, invitationId.data);
    redirect(ctx, `/members?ws=${page.workspace.workspaceId}&notice=invitation-revoked`);
  });
}

async function render(
  ctx: AppContext,
  options: WebOptions,
  page: SignedInPage,
  extra: Partial<MembersView>,
  status = 200,
): Promise<void> {
  const isOwner = (await roleOf(options.deps, page.scope)) === 'owner';
  const view: MembersView = {
    csrf: page.csrf,
    workspaceId: page.workspace.workspaceId,
    workspaceName: page.workspace.name,
    members: await listMembers(options.deps, page.scope),
    invitations: isOwner ? await listInvitations(options.deps, page.scope) : [],
    isOwner,
    currentUserId: page.user.userId,
    ...extra,
  };
  sendPage(ctx, {
    title: 'Members',
    chrome: page.chrome,
    status,
    main: membersView(view),
    copyButtons: view.created !== undefined,
  });
}
