import type { Router } from '@koa/router';
import { approveDeviceCode, denyDeviceCode, describeDeviceCode } from '../../core/device/approve.js';
import { AppError } from '../../core/errors.js';
import type { AppContext, AppState } from '../shared/context.js';
import { STATUS_BY_CODE } from '../shared/error-status.js';
import { deviceConfirmView, deviceEntryView, deviceResultView } from './device-views.js';
import { waitText } from './forms.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { readCheckedForm, signedInPage, type SignedInPage } from './page-context.js';
import { DeviceDecisionFormSchema } from './schema.js';
import { workspaceParam } from './workspace.js';

const TITLE = 'Approve a device';

/**
 * The verification page (spec 4, `verification_uri`): `/device` asks for the code,
 * `/device?code=…` (`verification_uri_complete`) shows the request and the workspace picker,
 * and the form posts an explicit approve or deny. Looking a code up goes through core's
 * guessing guard, so wrong codes here count against the user and the address.
 */
export function registerDevicePages(router: Router<AppState>, options: WebOptions): void {
  const { deps } = options;

  router.get('/device', async (ctx) => {
    const code = typeof ctx.query.code === 'string' ? ctx.query.code.trim().slice(0, 64) : '';
    const page = await signedInPage(ctx, options, 'device', workspaceParam(ctx), code ? { code } : undefined);
    if (!code) return sendPage(ctx, { title: TITLE, narrow: true, chrome: page.chrome, main: deviceEntryView({}) });
    const submitter = { userId: page.user.userId, address: ctx.ip };
    let description;
    try {
      description = await describeDeviceCode(deps, submitter, code);
    } catch (error) {
      return entryAgain(ctx, page, code, error);
    }
    if (description.status !== 'pending') {
      const { origin, redeemedAt } = description;
      const main = redeemedAt
        ? deviceResultView({ outcome: 'used', origin, minutesAgo: minutesSince(deps.now(), redeemedAt) })
        : deviceResultView({ outcome: description.status, origin });
      return sendPage(ctx, { title: TITLE, narrow: true, chrome: page.chrome, main });
    }
    const minutesLeft = Math.max(1, Math.ceil((description.expiresAt.getTime() - deps.now().getTime()) / 60_000));
    const main = deviceConfirmView({
      csrf: page.csrf,
      description,
      workspaces: page.user.workspaces,
      selectedWorkspaceId: page.workspace.workspaceId,
      minutesLeft,
    });
    sendPage(ctx, { title: TITLE, narrow: true, chrome: page.chrome, main });
  });

  router.post('/device', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const parsed = DeviceDecisionFormSchema.safeParse(form);
    const decision = parsed.success ? parsed.data : undefined;
    // Approving names the workspace; the page then acts in it, after the membership check.
    const explicit = decision?.decision === 'approve' ? decision.workspaceId : undefined;
    const page = await signedInPage(ctx, options, 'device', explicit);
    if (!decision) {
      const message = parsed.error?.issues[0]?.message ?? 'Enter the code shown on your device';
      return entryAgain(ctx, page, form.code, new AppError('invalid_request', message));
    }
    if (decision.decision === 'approve' && decision.workspaceId === undefined) {
      return entryAgain(
        ctx,
        page,
        decision.code,
        new AppError('invalid_request', 'Choose the workspace the key is for'),
      );
    }
    const submitter = { userId: page.user.userId, address: ctx.ip };
    let origin;
    try {
      // Found as deciding finds it (a wrong code counts once), for where the result page sends the person.
      ({ origin } = await describeDeviceCode(deps, submitter, decision.code));
      if (decision.decision === 'approve') {
        await approveDeviceCode(deps, page.scope, { userCode: decision.code, address: ctx.ip });
      } else {
        await denyDeviceCode(deps, submitter, { userCode: decision.code });
      }
    } catch (error) {
      return entryAgain(ctx, page, decision.code, error);
    }
    const outcome = decision.decision === 'approve' ? 'approved' : 'denied';
    const main = deviceResultView({ outcome, origin, workspaceName: page.workspace.name });
    sendPage(ctx, { title: TITLE, narrow: true, chrome: page.chrome, main });
  });
}

function minutesSince(now: Date, then: Date): number {
  return Math.max(0, Math.floor((now.getTime() - then.getTime()) / 60_000));
}

/** Shows the code form again with what went wrong; errors other than these four are the page's. */
function entryAgain(ctx: AppContext, page: SignedInPage, code: string | undefined, error: unknown): void {
  if (!(error instanceof AppError)) throw error;
  const messages: Partial<Record<string, string>> = {
    not_found:
      'That code is not valid or has expired. Check the code on your device, or start the sign-in again there.',
    conflict: 'This request has already been approved or denied.',
    rate_limited: `Too many wrong codes. Try again in ${waitText(error.retryAfterSeconds)}.`,
    invalid_request: error.message,
  };
  const message = messages[error.code];
  if (message === undefined) throw error;
  if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
  sendPage(ctx, {
    title: TITLE,
    narrow: true,
    status: STATUS_BY_CODE[error.code],
    chrome: page.chrome,
    main: deviceEntryView({ code, error: message }),
  });
}
