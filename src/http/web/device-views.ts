import type { DeviceCodeDescription } from '../../core/device/approve.js';
import type { DeviceLoginOrigin } from '../../core/device/documents.js';
import type { WorkspaceMembershipView } from '../../core/identity/memberships.js';
import { csrfField, hidden, inputField, notice, workspaceChoices } from './forms.js';
import { markup, type SafeHtml } from './html.js';

const CHAT_NAMES = { slack: 'Slack', discord: 'Discord' } as const;

/** The code entry form of /device, shown when no code (or a wrong one) was given. */
export function deviceEntryView(view: { code?: string | undefined; error?: string | undefined }): SafeHtml {
  return markup`<h1>Connect a device</h1>
    <p class="lead">Enter the code your terminal, agent or app is showing to give it an API key.</p>
    <div class="card">
      ${notice(view.error)}
      <form method="get" action="/device">
        ${inputField({
          name: 'code',
          label: 'Code shown on your device',
          value: view.code,
          hint: 'It looks like DECK-XXXX-XXXX. Dashes and capitals are optional.',
          autocomplete: 'off',
          required: true,
          maxlength: 64,
          code: true,
        })}
        <div class="actions"><button type="submit" class="primary">Continue</button></div>
      </form>
    </div>`;
}

/** What the confirmation shows before the person approves or denies. */
export interface DeviceConfirmView {
  csrf: string;
  description: DeviceCodeDescription;
  workspaces: WorkspaceMembershipView[];
  selectedWorkspaceId: string;
  minutesLeft: number;
  error?: string | undefined;
}

/**
 * The verification page proper: the code to compare, who is asking, the workspace the key
 * will be scoped to (a choice among the user's memberships) and explicit Approve and Deny.
 */
export function deviceConfirmView(view: DeviceConfirmView): SafeHtml {
  const { description } = view;
  const client = description.clientName
    ? markup`<strong>${description.clientName}</strong>`
    : markup`<span class="muted">The device did not say what it is</span>`;
  const chat = description.origin === 'device' ? undefined : CHAT_NAMES[description.origin];
  return markup`<h1>${chat ? `Link ${chat} to Postdeck` : 'Approve device sign-in'}</h1>
    <p class="lead">${
      chat
        ? `Postdeck's ${chat} bot is asking for a key to one of your workspaces, for posts and approvals in ${chat}.`
        : 'A device is asking for an API key for your Postdeck account.'
    }</p>
    <div class="card">
      ${notice(view.error)}
      <p>Check that this code matches the one ${chat ? `${chat} showed you` : 'on your device'}:</p>
      <p class="codebox" aria-label="Device code">${description.userCode}</p>
      <dl class="facts">
        <dt>Requesting client</dt>
        <dd>${client}</dd>
        <dt>Expires</dt>
        <dd>in ${view.minutesLeft === 1 ? 'about a minute' : `${view.minutesLeft} minutes`}</dd>
      </dl>
      <form method="post" action="/device">
        ${csrfField(view.csrf)}${hidden('code', description.userCode)}
        <fieldset>
          <legend>Workspace the key will be scoped to</legend>
          <p class="hint">
            The key can use everything in this workspace through the API: posts, media and connected accounts.
          </p>
          ${workspaceChoices(view.workspaces, view.selectedWorkspaceId)}
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary" name="decision" value="approve">Approve</button>
          <button type="submit" class="danger" name="decision" value="deny">Deny</button>
        </div>
      </form>
    </div>
    <p class="muted">Did not start this yourself, or the code does not match? Choose Deny.</p>`;
}

/** What the result page says, worded for where the login was started (a chat bot, or a device). */
export interface DeviceResultView {
  /** `used` when the approved key was already handed over (a revisited link). */
  outcome: 'approved' | 'denied' | 'used';
  origin: DeviceLoginOrigin;
  workspaceName?: string | undefined;
  /** For `used`: how long ago the key was handed over. */
  minutesAgo?: number | undefined;
}

/** The page after a decision: what happened, and where the login goes on from here. */
export function deviceResultView(view: DeviceResultView): SafeHtml {
  const chat = view.origin === 'device' ? undefined : CHAT_NAMES[view.origin];
  if (view.outcome === 'used') {
    const when = agoText(view.minutesAgo ?? 0);
    return markup`<div class="card result">
      <p class="mark" aria-hidden="true">✓</p>
      <h1>Code already used</h1>
      ${notice(chat ? `${chat} was linked to Postdeck ${when}.` : `The device got its API key ${when}.`, 'info')}
      <p>There is nothing left to do here.${chat && markup` <code>/postdeck status</code> in ${chat} shows the link.`}</p>
      <p class="muted"><a href="/keys">See your API keys</a></p>
    </div>`;
  }
  const back = chat
    ? markup`<strong>You can go back to ${chat}.</strong>`
    : markup`<strong>You can return to your terminal or app.</strong>`;
  if (view.outcome === 'approved') {
    const where = view.workspaceName ?? 'the workspace you chose';
    return markup`<div class="card result">
      <p class="mark" aria-hidden="true">✓</p>
      <h1>${chat ? `${chat} linked` : 'Device approved'}</h1>
      ${notice(
        chat
          ? `Postdeck's ${chat} bot now gets a key for ${where}.`
          : view.workspaceName
            ? `The device now gets an API key for ${view.workspaceName}.`
            : 'The device now gets its API key.',
        'success',
      )}
      <p>${back} ${chat ? `The bot confirms the link there within a few seconds.` : 'It picks up the key within a few seconds.'}</p>
      <p class="muted"><a href="/keys">See your API keys</a></p>
    </div>`;
  }
  return markup`<div class="card result">
    <p class="mark" aria-hidden="true">✕</p>
    <h1>Request denied</h1>
    ${notice(chat ? `${chat} will not be linked to Postdeck.` : 'The device will not get a key.', 'info')}
    <p>${back} ${chat ? 'The bot tells you there that the login was denied.' : 'It reports that access was denied.'}</p>
  </div>`;
}

function agoText(minutes: number): string {
  if (minutes < 1) return 'moments ago';
  return minutes === 1 ? 'a minute ago' : `${minutes} minutes ago`;
}
