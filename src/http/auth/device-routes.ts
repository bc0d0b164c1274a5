import { Router } from '@koa/router';
import type { CoreDeps } from '../../core/context.js';
import { approveDeviceCode, denyDeviceCode } from '../../core/device/approve.js';
import { pollDeviceToken } from '../../core/device/poll.js';
import { startDeviceAuthorization } from '../../core/device/start.js';
import { requireMembership } from '../../core/identity/memberships.js';
import {
  DeviceStartBodySchema,
  DeviceTokenBodySchema,
  OrganizationHeaderSchema,
  UserCodeBodySchema,
} from './auth-schema.js';
import type { AppState } from '../shared/context.js';
import { readDeviceBody } from './device-body.js';
import { answeringStartErrors, answeringTokenErrors } from './device-errors.js';
import { readJsonBody } from '../middleware/json-body.js';
import { requireSession } from '../middleware/session-auth.js';
import { noStore } from '../shared/no-store.js';
import { validate } from '../shared/validate.js';

/** What the device routes need from the composition root. */
export interface DeviceRouterOptions {
  deps: CoreDeps;
  publicUrl: string;
  /** The user-code prefix, `DECK` by default. */
  devicePrefix?: string | undefined;
  bodyLimitBytes: number;
}

/**
 * The RFC 8628 device flow of spec 4: start and token need no key, approve and deny a session.
 * Approve and deny stay JSON-only: the web app calls them, never a device-flow client.
 */
export function createDeviceRouter(options: DeviceRouterOptions): Router<AppState> {
  const { deps, bodyLimitBytes } = options;
  const router = new Router<AppState>({ prefix: '/auth/device' });

  // Both take JSON or RFC 8628's form; refusals carry RFC 6749's `error` and `error_description`.
  router.post('/start', async (ctx) => {
    noStore(ctx);
    await answeringStartErrors(ctx, async () => {
      // No body is an empty request; a JSON null is a body, and not an object.
      const raw = await readDeviceBody(ctx, bodyLimitBytes);
      const body = validate(DeviceStartBodySchema, raw === undefined ? {} : raw, 'body');
      ctx.body = await startDeviceAuthorization(deps, {
        clientName: body.client_name,
        publicUrl: options.publicUrl,
        prefix: options.devicePrefix,
        address: ctx.ip,
      });
    });
  });

  // Every answer here uses the RFC's `{ error, error_description }` body (spec 7, rule 1), bad input included.
  router.post('/token', async (ctx) => {
    noStore(ctx);
    await answeringTokenErrors(ctx, async () => {
      const body = validate(DeviceTokenBodySchema, (await readDeviceBody(ctx, bodyLimitBytes)) ?? {}, 'body');
      const approved = await pollDeviceToken(deps, { deviceCode: body.device_code, address: ctx.ip });
      // RFC 6749 5.1's names beside the spec's, so a stock client reads the key as its access token.
      ctx.body = { ...approved, access_token: approved.api_key, token_type: 'Bearer' };
    });
  });

  router.post('/approve', async (ctx) => {
    // The session comes first, so an anonymous caller learns nothing from validation errors.
    const session = await requireSession(deps, ctx);
    const headers = validate(
      OrganizationHeaderSchema,
      { 'x-organization-id': ctx.get('x-organization-id') },
      'headers',
    );
    const body = validate(UserCodeBodySchema, (await readJsonBody(ctx, bodyLimitBytes)) ?? {}, 'body');
    const scope = await requireMembership(deps, session.userId, headers['x-organization-id']);
    ctx.body = await approveDeviceCode(deps, scope, { userCode: body.userCode, address: ctx.ip });
  });

  router.post('/deny', async (ctx) => {
    const session = await requireSession(deps, ctx);
    const body = validate(UserCodeBodySchema, (await readJsonBody(ctx, bodyLimitBytes)) ?? {}, 'body');
    ctx.body = await denyDeviceCode(deps, { userId: session.userId, address: ctx.ip }, { userCode: body.userCode });
  });

  return router;
}
