import { z } from 'zod';

/** A connected, ready-to-post account (spec section 2); shared by every adapter. */
export const PlatformSchema = z
  .object({
    id: z.uuid(),
    provider: z.enum(['tiktok']).describe('the provider; only the short-video provider is offered'),
    providerName: z.string(),
    providerAccountId: z.string(),
    displayName: z.string().nullable(),
    displayHandle: z.string().nullable(),
    displayImageUrl: z.string().nullable(),
    disabled: z.boolean(),
    refreshNeeded: z.boolean(),
    tokenExpiresAt: z.iso.datetime().nullable(),
    capabilities: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    settings: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Platform' });

export const PlatformListSchema = z.object({ platforms: z.array(PlatformSchema) }).meta({ id: 'PlatformList' });
