// What the providers add to the public contract, known when the schemas are built (at import, before any
// provider object exists): the settings keys a post may carry and the body of a live posting schema.

import { z } from 'zod';
import { INSTAGRAM_SETTING_KEYS } from './instagram/rules/settings-schema.js';
import { InstagramPostingSchemaBodySchema } from './instagram/rules/posting-schema-body.js';
import { TIKTOK_SETTING_KEYS } from './tiktok/rules/settings-schema.js';
import { PostingSchemaBodySchema } from './tiktok/rules/posting-schema.js';

/** The settings keys each network declares. */
export const SETTING_KEYS_BY_PROVIDER: Readonly<Record<'tiktok' | 'instagram', readonly string[]>> = {
  tiktok: [...new Set([...TIKTOK_SETTING_KEYS.video, ...TIKTOK_SETTING_KEYS.photo])],
  instagram: INSTAGRAM_SETTING_KEYS,
};

/** Every settings key some provider declares (a post's `settings` takes these and no other). */
export const PROVIDER_SETTING_KEYS: readonly string[] = [...new Set(Object.values(SETTING_KEYS_BY_PROVIDER).flat())];

/** The body of `GET /platforms/{id}/schema`, as the output schema of the operation states it: one per network. */
export const POSTING_SCHEMA_BODY = z
  .discriminatedUnion('provider', [PostingSchemaBodySchema, InstagramPostingSchemaBodySchema])
  // Always an object, whichever network: MCP wants an output schema of type object.
  .meta({ type: 'object' });
export type PostingSchemaBody = z.infer<typeof POSTING_SCHEMA_BODY>;
