import { z } from 'zod';

/** Whether analytics can be read for an account; `reason` and `fix` say what to do when not. */
export const PlatformAnalyticsSchema = z
  .object({
    granted: z.boolean().describe("true when the account's grant allows reading its posts' and its own numbers"),
    missingScopes: z.array(z.string()).describe('the scopes analytics needs that the grant lacks'),
    reason: z.string().nullable().describe('why analytics cannot be read; null when granted'),
    fix: z.string().nullable().describe('what grants analytics (reconnecting the account); null when granted'),
  })
  .meta({ id: 'PlatformAnalytics' });

/** A connected, ready-to-post account (spec section 2); shared by every adapter. */
export const PlatformSchema = z
  .object({
    id: z.uuid(),
    provider: z
      .enum(['tiktok', 'instagram'])
      .describe('the network: `tiktok` (short videos and photo posts) or `instagram` (images, carousels, Reels)'),
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
    analytics: PlatformAnalyticsSchema,
  })
  .meta({ id: 'Platform' });

export const PlatformListSchema = z.object({ platforms: z.array(PlatformSchema) }).meta({ id: 'PlatformList' });
