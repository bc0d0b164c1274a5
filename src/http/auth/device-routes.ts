import { Router } from '@koa/router';
import type { CoreDeps } from '../../core/context.js';
import { approveDeviceCode, denyDeviceCode } from '../../core/device/approve.js';
import { DeviceFlowError } from '../../core/device/errors.js';
import { pollDeviceToken } from '../../core/device/poll.js';
import { startDeviceAuthorization } from '../../core/device/start.js';
import { AppError } from '../../core/errors.js';
import { requireMembership } from '../../core/identity/memberships.js';
import {
  DeviceStartBodySchema,
  DeviceTokenBodySchema,
  OrganizationHeaderSchema,
  UserCodeBodySchema,
} from './auth-schema.js';
import type { AppState } from '../shared/context.js';
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

/** The RFC 8628 device flow of spec 4: start and token need no key, approve and deny a session. */
export function createDeviceRouter(options: DeviceRouterOptions): Router<AppState> {
  const { deps, bodyLimitBytes } = options;
  const router = new Router<AppState>({ prefix: '/auth/device' });

  router.post('/start', async (ctx) => {
    // No body is an empty request; a JSON null is a body, and not an object.
    const raw = await readJsonBody(ctx, bodyLimitBytes);
    const body = validate(DeviceStartBodySchema, raw === undefined ? {} : raw, 'body');
    noStore(ctx);
    ctx.body = await startDeviceAuthorization(deps, {
      clientName: body.client_name,
      publicUrl: options.publicUrl,
      prefix: options.devicePrefix,
      address: ctx.ip,
    });
  });

  // Every answer here uses the RFC's `{ error }` body (spec 7, rule 1), bad input included.
  router.post('/token', async (ctx) => {
    noStore(ctx);
    let deviceCode: string;
    try {
      deviceCode = validate(DeviceTokenBodySchema, (await readJsonBody(ctx, bodyLimitBytes)) ?? {}, 'body').device_code;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      ctx.status = 400;
      ctx.body = { error: 'invalid_request' };
      return;
    }
    try {
      ctx.body = await pollDeviceToken(deps, { deviceCode, address: ctx.ip });
    } catch (error) {
      if (!(error instanceof DeviceFlowError)) throw error;
      ctx.status = error.retryAfterSeconds === undefined ? 400 : 429;
      if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
      ctx.body = { error: error.error };
    }
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
