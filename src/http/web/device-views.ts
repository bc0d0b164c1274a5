import type { DeviceCodeDescription } from '../../core/device/approve.js';
import type { WorkspaceMembershipView } from '../../core/identity/memberships.js';
import { csrfField, hidden, inputField, notice, workspaceChoices } from './forms.js';
import { markup, type SafeHtml } from './html.js';

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
  return markup`<h1>Approve device sign-in</h1>
    <p class="lead">A device is asking for an API key for your Postdeck account.</p>
    <div class="card">
      ${notice(view.error)}
      <p>Check that this code matches the one on your device:</p>
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

/** The page after a decision: what happened, and that the terminal takes it from here. */
export function deviceResultView(view: {
  outcome: 'approved' | 'denied';
  workspaceName?: string | undefined;
}): SafeHtml {
  if (view.outcome === 'approved') {
    return markup`<div class="card result">
      <p class="mark" aria-hidden="true">✓</p>
      <h1>Device approved</h1>
      ${notice(
        view.workspaceName
          ? `The device now gets an API key for ${view.workspaceName}.`
          : 'The device now gets its API key.',
        'success',
      )}
      <p><strong>You can return to your terminal.</strong> It picks up the key within a few seconds.</p>
      <p class="muted"><a href="/keys">See your API keys</a></p>
    </div>`;
  }
  return markup`<div class="card result">
    <p class="mark" aria-hidden="true">✕</p>
    <h1>Request denied</h1>
    ${notice('The device will not get a key.', 'info')}
    <p><strong>You can return to your terminal.</strong> It reports that access was denied.</p>
  </div>`;
}
