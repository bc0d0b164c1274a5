import type { AuthorizationRequest } from '../../core/oauth/authorize.js';
import type { WorkspaceMembershipView } from '../../core/identity/memberships.js';
import { csrfField, hidden, workspaceChoices } from './forms.js';
import { markup, type SafeHtml } from './html.js';

/** The request's parameters the consent form posts back, so the POST checks the same request again. */
export const CARRIED_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'resource',
] as const;

/**
 * The consent page: which application asks, where it sends the answer, the workspace its token
 * will be bound to (a choice among the person's memberships), and explicit Allow and Deny.
 */
export function oauthConsentView(view: {
  csrf: string;
  request: AuthorizationRequest;
  params: Record<string, string | undefined>;
  workspaces: WorkspaceMembershipView[];
  selectedWorkspaceId: string;
}): SafeHtml {
  const redirect = new URL(view.request.redirectUri);
  const destination = redirect.protocol.startsWith('http') ? redirect.host : redirect.protocol;
  const carried = CARRIED_PARAMS.flatMap((name) => {
    const value = view.params[name];
    return value === undefined ? [] : [hidden(name, value)];
  });
  return markup`<h1>Allow ${view.request.client.clientName}?</h1>
    <p class="lead">An application is asking to use Postdeck for you through its AI tools (MCP).</p>
    <div class="card">
      <dl class="facts">
        <dt>Application</dt>
        <dd><strong>${view.request.client.clientName}</strong> <small class="muted">(it named itself)</small></dd>
        <dt>Answer goes to</dt>
        <dd><code>${destination}</code></dd>
      </dl>
      <form method="post" action="/oauth/authorize">
        ${csrfField(view.csrf)}${carried}
        <fieldset>
          <legend>Workspace the application may use</legend>
          <p class="hint">
            It can do everything in this workspace that an API key can: posts, media and connected accounts. Its
            access is listed under API keys, where you can revoke it at any time.
          </p>
          ${workspaceChoices(view.workspaces, view.selectedWorkspaceId)}
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary" name="decision" value="approve">Allow</button>
          <button type="submit" class="danger" name="decision" value="deny">Deny</button>
        </div>
      </form>
    </div>
    <p class="muted">Did not start this yourself, or do not recognise the application? Choose Deny.</p>`;
}
