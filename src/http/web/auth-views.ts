import { PASSWORD_MIN_LENGTH } from '../../core/identity/passwords.js';
import type { InvitationPreview } from '../../core/tenancy/onboarding.js';
import { csrfField, hidden, inputField, notice } from './forms.js';
import { markup, type SafeHtml } from './html.js';

/** What the sign-in form shows. */
export interface SignInView {
  csrf: string;
  next: string;
  email?: string | undefined;
  error?: string | undefined;
  info?: string | undefined;
}

/** The sign-in form. */
export function signInView(view: SignInView): SafeHtml {
  return markup`<h1>Sign in to Postdeck</h1>
    <div class="card">
      ${notice(view.error)}${notice(view.info, 'info')}
      <form method="post" action="/signin">
        ${csrfField(view.csrf)}${hidden('next', view.next)}
        ${inputField({
          name: 'email',
          label: 'Email',
          type: 'email',
          value: view.email,
          autocomplete: 'username',
          required: true,
          maxlength: 254,
        })}
        ${inputField({
          name: 'password',
          label: 'Password',
          type: 'password',
          autocomplete: 'current-password',
          required: true,
        })}
        <div class="actions"><button type="submit" class="primary">Sign in</button></div>
      </form>
    </div>
    <p class="muted">New here? <a href="/signup?next=${encodeURIComponent(view.next)}">Create an account</a></p>`;
}

/** What the sign-up form shows. */
export interface SignUpView {
  csrf: string;
  next: string;
  values?: { name?: string | undefined; email?: string | undefined };
  errors?: Record<string, string>;
  error?: string | undefined;
  /** The invitation being accepted by signing up, when there is one. */
  invitation?: { token: string; preview: InvitationPreview } | undefined;
}

/** The sign-up form, plain or for an invitation. */
export function signUpView(view: SignUpView): SafeHtml {
  const errors = view.errors ?? {};
  const invited = view.invitation;
  const heading = invited ? markup`Join ${invited.preview.workspaceName}` : markup`Create your Postdeck account`;
  const email = view.values?.email ?? invited?.preview.email ?? undefined;
  // Someone invited who already has an account signs in and comes back to accept.
  const back = invited ? `/invite?token=${encodeURIComponent(invited.token)}` : view.next;
  return markup`<h1>${heading}</h1>
    ${invited ? invitedLead(invited.preview) : ''}
    <div class="card">
      ${notice(view.error ?? errors._form)}
      <form method="post" action="/signup">
        ${csrfField(view.csrf)}${hidden('next', view.next)}${invited ? hidden('invitation', invited.token) : ''}
        ${inputField({
          name: 'name',
          label: 'Your name',
          value: view.values?.name,
          error: errors.name,
          autocomplete: 'name',
          required: true,
          maxlength: 100,
        })}
        ${inputField({
          name: 'email',
          label: 'Email',
          type: 'email',
          value: email,
          error: errors.email,
          autocomplete: 'username',
          required: true,
          maxlength: 254,
        })}
        ${inputField({
          name: 'password',
          label: 'Password',
          type: 'password',
          error: errors.password,
          hint: `At least ${PASSWORD_MIN_LENGTH} characters.`,
          autocomplete: 'new-password',
          required: true,
          minlength: PASSWORD_MIN_LENGTH,
        })}
        <div class="actions"><button type="submit" class="primary">Create account</button></div>
      </form>
    </div>
    <p class="muted">
      Already have an account?
      <a href="/signin?next=${encodeURIComponent(back)}">${invited ? 'Sign in to accept' : 'Sign in'}</a>
    </p>`;
}

/** The sign-up page of an install that only takes invited people. */
export function signUpClosedView(next: string): SafeHtml {
  return markup`<h1>Sign-up is by invitation</h1>
    <div class="card">
      <p>
        This Postdeck server only takes new people through an invite link from a workspace owner. Ask an owner to invite
        you from their Members page, then open the link they send you.
      </p>
    </div>
    <p class="muted">Already have an account? <a href="/signin?next=${encodeURIComponent(next)}">Sign in</a></p>`;
}

function invitedLead(preview: InvitationPreview): SafeHtml {
  return markup`<p class="lead">
    You were invited to join <strong>${preview.workspaceName}</strong> as ${roleName(preview.role)}. Create an account
    to accept.
  </p>`;
}

/** How a role reads in a sentence. */
export function roleName(role: 'owner' | 'member'): string {
  return role === 'owner' ? 'an owner' : 'a member';
}
