import { analyticsTurnedOff } from '../../core/providers/tiktok/index.js';
import type { PlatformOverview, PlatformState } from '../../core/platforms/list-platforms.js';
import { csrfField, hidden, notice } from './forms.js';
import { markup, type SafeHtml } from './html.js';
import { when } from './layout.js';
import { renderTable } from './table.js';

/** A network the server connects accounts of, as the page offers it. */
export interface NetworkView {
  id: string;
  name: string;
  emulated: boolean;
  /** What keeps real posts from working on it with this server's setup, or null. */
  warning: string | null;
}

/** What the social accounts page shows. */
export interface PlatformsView {
  csrf: string;
  workspaceId: string;
  workspaceName: string;
  accounts: PlatformOverview[];
  networks: NetworkView[];
  /** false: the server asks TikTok for no analytics scopes (TIKTOK_ANALYTICS=false). */
  analyticsEnabled: boolean;
  done: string | undefined;
  problem: string | undefined;
}

const STATE_BADGES: Record<PlatformState, SafeHtml> = {
  ready: markup`<span class="badge">Ready</span>`,
  needs_reconnect: markup`<span class="badge off">Needs reconnect</span>`,
  disconnected: markup`<span class="badge off">Disconnected</span>`,
};

const CAPABILITY_NAMES: Record<string, string> = {
  video: 'Videos',
  photo: 'Photos',
  draft: 'Drafts',
  image: 'Images',
  carousel: 'Carousels',
  reel: 'Reels',
};

/** The page body: the emulator banners and warnings, a connect button per network and one row per account. */
export function platformsView(view: PlatformsView): SafeHtml {
  return markup`<h1>Social accounts of ${view.workspaceName}</h1>
    ${view.networks.map(networkNotices)}${notice(view.done, 'success')}${notice(view.problem)}
    <p class="muted">
      Posts go to the accounts connected here. Connecting sends you to the network to choose an account and allow
      Postdeck to post for it; connecting the same account again refreshes its permissions.
    </p>
    ${
      view.accounts.length === 0
        ? markup`<div class="card">
            <p>No account is connected to this workspace yet.</p>
            ${connectButtons(view)}
          </div>`
        : markup`${analyticsNotice(view)}${accountTable(view)}${connectButtons(view)}`
    }`;
}

function connectButtons(view: PlatformsView): SafeHtml {
  return markup`<div class="actions">${view.networks.map((n) => connectForm(view, n.id, `Connect ${n.name}`, 'primary'))}</div>`;
}

function networkNotices(network: NetworkView): SafeHtml {
  return markup`${network.emulated ? emulatorBanner(network.name) : ''}${
    network.warning ? notice(`${network.name}: ${network.warning}`, 'info') : ''
  }`;
}

/** Connected accounts whose TikTok grant does not allow reading their numbers (connected before Postdeck asked). */
function withoutAnalytics(view: PlatformsView): PlatformOverview[] {
  return view.accounts.filter((a) => a.state !== 'disconnected' && !a.platform.analytics.granted);
}

function analyticsNotice(view: PlatformsView): SafeHtml {
  if (!view.analyticsEnabled) {
    return markup`<div class="notice info" role="status">
      <strong>Analytics is turned off on this server</strong> (<code>TIKTOK_ANALYTICS=false</code>): Postdeck asks TikTok
      only for permission to post, so it shows no views, likes or followers. An administrator turns it on once the
      TikTok app has the Display API product; then reconnect the accounts.
    </div>`;
  }
  const count = withoutAnalytics(view).length;
  if (count === 0) return markup``;
  return markup`<div class="notice info" role="status">
    <strong>${count === 1 ? '1 account does' : `${count} accounts do`} not share analytics yet.</strong> Postdeck now asks
    TikTok for permission to read your posts' views, likes, comments and shares and your followers. Reconnect the
    account to grant analytics; publishing keeps working meanwhile.
  </div>`;
}

function analyticsCell({ platform, state }: PlatformOverview): SafeHtml {
  if (state === 'disconnected') return markup`<span class="muted">—</span>`;
  if (platform.analytics.granted) return markup`<span class="badge">Granted</span>`;
  if (analyticsTurnedOff(platform)) {
    return markup`<span class="badge off">Off</span><br /><span class="muted">Connected while analytics was off</span>`;
  }
  return markup`<span class="badge off">Not granted</span><br /><span class="muted">Reconnect the account to grant analytics</span>`;
}

const APP_SETTINGS: Record<string, string> = { TikTok: 'TIKTOK_CLIENT_KEY', Instagram: 'INSTAGRAM_APP_ID' };

function emulatorBanner(network: string): SafeHtml {
  return markup`<div class="notice info" role="status">
    <strong>${network} emulator — posts go nowhere real.</strong> No ${network} app is configured
    (<code>${APP_SETTINGS[network] ?? 'its app settings'}</code>), so Postdeck runs a local emulator of ${network}: its
    accounts below are emulated and nothing is published on ${network}.
  </div>`;
}

function connectForm(view: PlatformsView, network: string, label: string, kind: string, account?: string): SafeHtml {
  return markup`<form class="inline" method="post" action="/platforms/${network}/connect">
    ${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}
    <button type="submit" class="${kind}" ${account ? markup`aria-label="${label} ${account}"` : ''}>${label}</button>
  </form>`;
}

function accountTable(view: PlatformsView): SafeHtml {
  return renderTable({
    caption: view.accounts.length === 1 ? '1 account' : `${view.accounts.length} accounts`,
    rows: view.accounts,
    columns: [
      {
        header: 'Network',
        cell: ({ platform }) => platform.providerName,
      },
      {
        header: 'Account',
        cell: ({ platform }) =>
          markup`<strong>${platform.displayName ?? 'Unnamed account'}</strong>
            ${platform.displayHandle ? markup`<br /><span class="muted">@${platform.displayHandle}</span>` : ''}`,
      },
      { header: 'Status', cell: ({ state }) => STATE_BADGES[state] },
      {
        header: 'Can post',
        cell: ({ platform }) =>
          platform.capabilities.map((c) => CAPABILITY_NAMES[c] ?? c).join(', ') ||
          markup`<span class="muted">None: reconnect and allow posting</span>`,
      },
      { header: 'Analytics', cell: analyticsCell },
      {
        header: 'Access token until',
        cell: ({ platform, state }) =>
          state === 'disconnected'
            ? markup`<span class="muted">—</span>`
            : when(platform.tokenExpiresAt ? new Date(platform.tokenExpiresAt) : null, 'Unknown'),
      },
      {
        header: 'Actions',
        mutedHeader: true,
        cell: ({ platform, state }) => {
          const name = platform.displayHandle ? `@${platform.displayHandle}` : (platform.displayName ?? platform.id);
          const reconnect = state !== 'ready' || (!platform.analytics.granted && view.analyticsEnabled);
          const form = connectForm(view, platform.provider, 'Reconnect', 'secondary small', name);
          return markup`${reconnect ? form : ''}
            ${
              state === 'disconnected'
                ? ''
                : markup`<form class="inline" method="post" action="/platforms/${platform.id}/disconnect">
                    ${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}
                    <button type="submit" class="danger small" aria-label="Disconnect ${name}">Disconnect</button>
                  </form>`
            }`;
        },
      },
    ],
  });
}
