// What the providers add to the public contract, known when the schemas are built (at import, before any
// provider object exists): the settings keys a post may carry and the body of a live posting schema.

import { TIKTOK_SETTING_KEYS } from './tiktok/rules/settings-schema.js';
import { PostingSchemaBodySchema, type PostingSchemaBody } from './tiktok/rules/posting-schema.js';

/** Every settings key some provider declares (a post's `settings` takes these and no other). */
export const PROVIDER_SETTING_KEYS: readonly string[] = [
  ...new Set([...TIKTOK_SETTING_KEYS.video, ...TIKTOK_SETTING_KEYS.photo]),
];

/** The body of `GET /platforms/{id}/schema`, as the output schema of the operation states it. */
export const POSTING_SCHEMA_BODY = PostingSchemaBodySchema;
export type { PostingSchemaBody };
