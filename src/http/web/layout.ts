import type { WorkspaceMembershipView } from '../../core/identity/memberships.js';
import type { AppContext } from '../shared/context.js';
import { COPY_SCRIPT_PATH } from './copy-script.js';
import { csrfField, hidden } from './forms.js';
import { markup, raw, type SafeHtml } from './html.js';
import type { WebUser } from './session.js';

/** The sections of the signed-in header, in the order shown. */
const SECTIONS = [
  { id: 'posts', href: '/posts', label: 'Posts' },
  { id: 'analytics', href: '/analytics', label: 'Analytics' },
  { id: 'platforms', href: '/platforms', label: 'Social accounts' },
  { id: 'keys', href: '/keys', label: 'API keys' },
  { id: 'settings', href: '/settings', label: 'AI settings' },
  { id: 'usage', href: '/usage', label: 'Usage' },
  { id: 'members', href: '/members', label: 'Members' },
  { id: 'device', href: '/device', label: 'Approve a device' },
] as const;

export type Section = (typeof SECTIONS)[number]['id'];

/** The signed-in header: sections, the current workspace and its switcher, and sign-out. */
export interface Chrome {
  user: WebUser;
  workspace: WorkspaceMembershipView;
  csrfToken: string;
  section: Section;
  /** Query parameters the workspace switcher must keep (e.g. the device code). */
  keep?: Record<string, string>;
}

/** What a page is made of. */
export interface Page {
  title: string;
  main: SafeHtml;
  chrome?: Chrome | undefined;
  /** A single centred card (sign-in, the device page) rather than the full width. */
  narrow?: boolean;
  status?: number;
  /** The page has Copy buttons (`data-copy`): it loads the one script that runs them. */
  copyButtons?: boolean;
}

/** Renders `page` as the response: HTML with the status given (200 by default). */
export function sendPage(ctx: AppContext, page: Page): void {
  ctx.status = page.status ?? 200;
  ctx.type = 'html';
  ctx.body = renderPage(page).value;
}

/** The whole document around a page's main content. */
export function renderPage(page: Page): SafeHtml {
  return markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${page.title} · Postdeck</title>
        <link rel="stylesheet" href="/assets/app.css" />
        ${page.copyButtons ? markup`<script src="${COPY_SCRIPT_PATH}" defer></script>` : ''}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <div class="bar">
            <a class="brand" href="/">Postdeck</a>
            ${page.chrome ? account(page.chrome) : ''}
          </div>
          ${page.chrome ? sections(page.chrome.section) : ''}
        </header>
        <main id="main" class="${page.narrow ? 'narrow' : 'wide'}">${page.main}</main>
      </body>
    </html> `;
}

function sections(current: Section): SafeHtml {
  const items = SECTIONS.map(
    (s) => markup`<li><a href="${s.href}" ${s.id === current ? raw(' aria-current="page"') : ''}>${s.label}</a></li>`,
  );
  return markup`<nav class="sections" aria-label="Sections">
    <ul>
      ${items}
    </ul>
  </nav>`;
}

// The switcher is a GET form to the current page: `?ws=` selects and remembers a workspace.
function account(chrome: Chrome): SafeHtml {
  const { user, workspace } = chrome;
  const keep = Object.entries(chrome.keep ?? {}).map(([name, value]) => hidden(name, value));
  const switcher =
    user.workspaces.length > 1
      ? markup`<form class="switcher" method="get" action="/${chrome.section}">
          ${keep}
          <label for="ws-switch">Workspace</label>
          <select id="ws-switch" name="ws">
            ${user.workspaces.map(
              (w) =>
                markup`<option
                  value="${w.workspaceId}"
                  ${w.workspaceId === workspace.workspaceId ? raw(' selected') : ''}
                >
                  ${w.name}
                </option>`,
            )}
          </select>
          <button type="submit" class="secondary small">Switch</button>
        </form>`
      : markup`<p class="switcher"><span class="muted">Workspace</span> <strong>${workspace.name}</strong></p>`;
  return markup`<div class="account">
    ${switcher}
    <form class="signout" method="post" action="/signout">
      ${csrfField(chrome.csrfToken)}
      <span class="muted who">${user.email ?? user.name}</span>
      <button type="submit" class="link">Sign out</button>
    </form>
  </div>`;
}

/** A date as people read it, in UTC, inside a machine-readable <time>. */
export function when(date: Date | null, empty = 'Never'): SafeHtml {
  if (!date) return markup`<span class="muted">${empty}</span>`;
  const text = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return markup`<time datetime="${date.toISOString()}">${text}</time>`;
}
