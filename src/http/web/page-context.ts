import type { AppContext } from '../shared/context.js';
import { assertCsrf, csrfToken } from './csrf.js';
import { readFormBody } from './form-body.js';
import type { Chrome, Section } from './layout.js';
import type { WebOptions } from './options.js';
import { requireWebUser, type WebUser } from './session.js';
import { resolveWorkspace, type CurrentWorkspace } from './workspace.js';

/** Everything a signed-in page needs: who, which workspace, and the header to show. */
export interface SignedInPage extends CurrentWorkspace {
  user: WebUser;
  csrf: string;
  chrome: Chrome;
}

/**
 * Resolves the user (or redirects to sign-in) and the workspace the page acts in, with an
 * explicit workspace id when the request names one (`ws` on a GET, `workspaceId` in a form).
 */
export async function signedInPage(
  ctx: AppContext,
  options: WebOptions,
  section: Section,
  explicitWorkspace: string | undefined,
  keep?: Record<string, string>,
): Promise<SignedInPage> {
  const user = await requireWebUser(options.deps, ctx, options.secureCookies);
  const current = await resolveWorkspace(options.deps, ctx, user, {
    explicit: explicitWorkspace,
    secureCookies: options.secureCookies,
  });
  const csrf = csrfToken(ctx, options.secureCookies);
  const chrome: Chrome = { user, workspace: current.workspace, csrfToken: csrf, section, ...(keep ? { keep } : {}) };
  return { ...current, user, csrf, chrome };
}

/** Reads a posted form and refuses it (403) unless it came from one of our pages. */
export async function readCheckedForm(ctx: AppContext, options: WebOptions): Promise<Record<string, string>> {
  const form = await readFormBody(ctx, options.bodyLimitBytes);
  assertCsrf(ctx, form, options.publicUrl);
  return form;
}
