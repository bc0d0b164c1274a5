import { AUDIT_ACTIONS, type AuditAction } from '../../core/audit/documents.js';
import type { AuditEntry } from '../../core/audit/schema.js';
import { selectField } from './forms.js';
import { markup, type SafeHtml } from './html.js';
import { when } from './layout.js';
import { renderTable } from './table.js';

/** Each action as the page says it. */
export const ACTION_LABELS: Readonly<Record<AuditAction, string>> = {
  'post.created': 'Created a post',
  'post.approved': 'Approved a post',
  'post.rejected': 'Rejected a draft',
  'post.published': 'Post published',
  'post.deleted': 'Deleted a post',
  'plan.changed': 'Changed the plan',
  'api_key.created': 'Created an API key',
  'api_key.revoked': 'Revoked an API key',
  'oauth.granted': 'Granted OAuth access',
  'platform.connected': 'Connected a social account',
  'platform.disconnected': 'Disconnected a social account',
  'chat.linked': 'Linked a Slack or Discord workspace',
  'chat.unlinked': 'Unlinked a Slack or Discord workspace',
  'chat.link_changed': 'Changed a chat link’s settings',
  'webhook.created': 'Added a webhook endpoint',
  'webhook.deleted': 'Deleted a webhook endpoint',
  'webhook.secret_rotated': 'Rotated a webhook signing secret',
  'invitation.created': 'Created an invitation',
  'invitation.revoked': 'Withdrew an invitation',
  'member.joined': 'Joined the workspace',
  'ai_settings.changed': 'Changed the AI settings',
};

const SURFACE_LABELS: Readonly<Record<AuditEntry['surface'], string>> = {
  rest: 'REST API',
  mcp: 'MCP',
  slack: 'Slack',
  discord: 'Discord',
  web: 'Web app',
  cli: 'Command line',
  system: 'Postdeck itself',
};

/** What the audit page shows. */
export interface AuditView {
  workspaceId: string;
  workspaceName: string;
  entries: AuditEntry[];
  action: AuditAction | undefined;
  /** People and keys by id, so rows name them. */
  userNames: ReadonlyMap<string, string>;
  keyNames: ReadonlyMap<string, string>;
  /** Networks' names by `provider` ("instagram" → "Instagram"), so an entry naming its provider says which. */
  networkNames: ReadonlyMap<string, string>;
  /** The link to the next (older) page, when there is one. */
  olderHref: string | undefined;
}

/** The trail, newest first, with a filter by action. */
export function auditView(view: AuditView): SafeHtml {
  const table = renderTable({
    caption: 'Newest first, the last 30 days',
    rows: view.entries,
    empty: markup`<p class="muted">Nothing recorded${view.action ? ' for this action' : ''} in the last 30 days.</p>`,
    columns: [
      { header: 'When', cell: (entry) => when(new Date(entry.at)) },
      { header: 'What', cell: (entry) => markup`${ACTION_LABELS[entry.action]}<br />${subject(entry, view)}` },
      { header: 'Who', cell: (entry) => actor(entry, view) },
      { header: 'Through', cell: (entry) => SURFACE_LABELS[entry.surface] },
      { header: 'Details', cell: (entry) => details(entry) },
    ],
  });
  return markup`<h1>Audit trail of ${view.workspaceName}</h1>
    <p class="muted">
      Who created, approved, rejected or deleted posts (and who asked for each one published), changed the plan or the
      AI settings, created or revoked API keys, granted OAuth access, added or deleted webhook endpoints, invited people
      or joined, connected or disconnected TikTok and Instagram accounts, and linked, changed or unlinked Slack and Discord
      workspaces. Only the workspace's owners see this page.
    </p>
    <form method="get" action="/audit" class="when">
      <input type="hidden" name="ws" value="${view.workspaceId}" />
      ${selectField({
        name: 'action',
        label: 'Action',
        value: view.action ?? '',
        options: [
          { value: '', label: 'All actions' },
          ...AUDIT_ACTIONS.map((a) => ({ value: a, label: ACTION_LABELS[a] })),
        ],
      })}
      <button type="submit" class="secondary small">Show</button>
    </form>
    ${table}
    ${view.olderHref ? markup`<p><a href="${view.olderHref}">Older entries</a></p>` : ''}`;
}

function subject(entry: AuditEntry, view: AuditView): SafeHtml {
  if (entry.subject.type === 'chat_link') {
    // `<platform>:<team id>`: the team's id is what its admins recognise, so it is shown whole.
    const [platform, team] = entry.subject.id.split(':');
    const where = platform === 'slack' ? 'Slack workspace' : 'Discord server';
    return markup`<span class="muted">${where} <code>${team ?? ''}</code></span>`;
  }
  const provider = entry.details.provider;
  const network = typeof provider === 'string' ? view.networkNames.get(provider) : undefined;
  // Entries written before they named their provider were all TikTok's (the only network then).
  const platformWords = `${network ?? 'TikTok'} account`;
  const type = entry.subject.type === 'platform' ? platformWords : entry.subject.type.replace('_', ' ');
  return markup`<span class="muted">${type} <code>${entry.subject.id.slice(0, 8)}</code></span>`;
}

function actor(entry: AuditEntry, view: AuditView): SafeHtml {
  const asker = whoAsked(entry, view);
  // The engine publishes; the entry names whoever asked for it.
  if (entry.action === 'post.published' && entry.actor.type !== 'system') {
    return markup`<span class="muted">Postdeck, as asked by</span><br />${asker}`;
  }
  return asker;
}

function whoAsked(entry: AuditEntry, view: AuditView): SafeHtml {
  const { actor: who } = entry;
  const person = who.userId ? (view.userNames.get(who.userId) ?? 'a former member') : null;
  const chat = who.chatUser ? markup`${who.chatUser.name} <span class="muted">(${who.chatUser.platform})</span>` : null;
  if (who.type === 'api_key' && who.keyId) {
    const key = view.keyNames.get(who.keyId) ?? 'a deleted key';
    if (chat) return markup`${chat}<br /><span class="muted">with the key “${key}”</span>`;
    return markup`${person ?? 'No one'}<br /><span class="muted">with the key “${key}”</span>`;
  }
  if (who.type === 'user') return markup`${person ?? 'a former member'}`;
  return markup`<span class="muted">Postdeck</span>`;
}

function details(entry: AuditEntry): SafeHtml {
  const pairs = Object.entries(entry.details).filter(([, value]) => value !== null);
  if (pairs.length === 0) return markup`<span class="muted">none</span>`;
  return markup`${pairs.map(([key, value]) => markup`<span class="muted">${key}</span> ${String(value)}<br />`)}`;
}
