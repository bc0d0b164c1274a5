import type { InvitationView } from '../../core/identity/invitations.js';
import type { MemberView } from '../../core/identity/memberships.js';
import { csrfField, hidden, inputField, notice, selectField } from './forms.js';
import { markup, type SafeHtml } from './html.js';
import { when } from './layout.js';
import { renderTable } from './table.js';

/** What the members page shows. */
export interface MembersView {
  csrf: string;
  workspaceId: string;
  workspaceName: string;
  members: MemberView[];
  invitations: InvitationView[];
  isOwner: boolean;
  currentUserId: string;
  /** The link just created: shown this once, never stored in clear. */
  created?: { link: string; invitation: InvitationView } | undefined;
  errors?: Record<string, string>;
  values?: Record<string, string>;
  saved?: string | undefined;
}

/** The members list, and for owners the invite form and open invitations. */
export function membersView(view: MembersView): SafeHtml {
  const members = renderTable({
    caption: view.members.length === 1 ? '1 member' : `${view.members.length} members`,
    rows: view.members,
    columns: [
      {
        header: 'Name',
        cell: (m) =>
          markup`${m.name}${m.userId === view.currentUserId ? markup` <span class="muted">(you)</span>` : ''}`,
      },
      { header: 'Email', cell: (m) => m.email ?? markup`<span class="muted">none</span>` },
      { header: 'Role', cell: (m) => (m.role === 'owner' ? 'Owner' : 'Member') },
      { header: 'Joined', cell: (m) => when(m.joinedAt) },
    ],
  });
  return markup`<h1>Members of ${view.workspaceName}</h1>
    ${notice(view.saved, 'success')}
    ${members}
    ${view.isOwner ? ownerSection(view) : markup`<p class="muted">Owners of this workspace can invite people.</p>`}`;
}

function ownerSection(view: MembersView): SafeHtml {
  const errors = view.errors ?? {};
  return markup`<p><a href="/audit?ws=${view.workspaceId}">Audit trail</a>: who approved, published, rejected or changed what, and through which surface.</p>
    ${view.created ? createdLink(view.created) : ''}
    <section class="card" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      ${notice(Object.keys(errors).length > 0 ? 'The invitation was not created; see below.' : undefined)}
      <form method="post" action="/members/invitations">
        ${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}
        <div class="grid2">
          ${inputField({
            name: 'email',
            label: 'Email (optional)',
            type: 'email',
            value: view.values?.email,
            error: errors.email,
            hint: 'When given, only this address can use the link.',
            autocomplete: 'off',
            maxlength: 254,
          })}
          ${selectField({
            name: 'role',
            label: 'Role',
            value: view.values?.role ?? 'member',
            error: errors.role,
            hint: 'Owners can change settings and invite people.',
            options: [
              { value: 'member', label: 'Member' },
              { value: 'owner', label: 'Owner' },
            ],
          })}
        </div>
        <div class="actions"><button type="submit" class="primary">Create invite link</button></div>
      </form>
    </section>
    ${view.invitations.length > 0 ? invitationTable(view) : ''}`;
}

function createdLink(created: { link: string; invitation: InvitationView }): SafeHtml {
  const expires = created.invitation.expiresAt.toISOString().slice(0, 10);
  return markup`<section class="card" aria-labelledby="link-heading">
    <h2 id="link-heading">Invite link created</h2>
    ${notice(`Copy this link now: it is shown only once. It works for one person and expires ${expires}.`, 'success')}
    <div class="field">
      <p class="label" id="invite-link-label">Invite link</p>
      <p class="secret" id="invite-link" aria-labelledby="invite-link-label">${created.link}</p>
      <button type="button" class="secondary small" data-copy="invite-link" hidden>Copy link</button>
    </div>
  </section>`;
}

function invitationTable(view: MembersView): SafeHtml {
  const invitations = renderTable({
    rows: view.invitations,
    columns: [
      { header: 'For', cell: (i) => i.email ?? markup`<span class="muted">anyone with the link</span>` },
      { header: 'Role', cell: (i) => (i.role === 'owner' ? 'Owner' : 'Member') },
      { header: 'Created', cell: (i) => when(i.createdAt) },
      { header: 'Expires', cell: (i) => when(i.expiresAt) },
      {
        header: 'Action',
        mutedHeader: true,
        cell: (i) =>
          markup`<form class="inline" method="post" action="/members/invitations/${i.id}/revoke">
            ${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}
            <button
              type="submit"
              class="danger small"
              aria-label="Withdraw the invitation for ${i.email ?? 'anyone with the link'}"
            >
              Withdraw
            </button>
          </form>`,
      },
    ],
  });
  return markup`<h2>Open invitations</h2>
    ${invitations}`;
}
