import { z } from 'zod';

const JsonSchemaObject = z.record(z.string(), z.unknown()).describe('a JSON Schema (draft 2020-12) document');

/** Instagram's posting schema of an account: everything needed to build a valid post, and the quota left. */
export const InstagramPostingSchemaBodySchema = z
  .object({
    platformId: z.uuid(),
    provider: z.literal('instagram'),
    checkedAt: z.iso.datetime().describe('when Instagram was asked for the quota'),
    account: z.object({
      displayName: z.string().nullable(),
      displayHandle: z.string().nullable(),
      accountType: z.string().nullable().describe('BUSINESS or MEDIA_CREATOR (a creator account)'),
    }),
    postKinds: z
      .array(z.object({ kind: z.enum(['image', 'carousel', 'reel']), media: z.string() }))
      .describe('what the media of a post make; the kind follows from mediaIds'),
    quota: z
      .object({ used: z.int(), total: z.int(), left: z.int(), windowHours: z.int() })
      .nullable()
      .describe('publishes in the rolling 24 hours (content_publishing_limit); null when Instagram did not answer'),
    content: z.object({ unit: z.string(), maxLength: z.int(), maxHashtags: z.int(), maxMentions: z.int() }),
    media: z.object({
      image: z.object({
        mimeTypes: z.array(z.string()).describe('what Instagram takes'),
        renderedAsJpeg: z.array(z.string()).describe('what Postdeck renders as a JPEG for the post'),
        maxBytes: z.int(),
        minWidthPx: z.int(),
        maxWidthPx: z.int(),
        minAspectRatio: z.number(),
        maxAspectRatio: z.number(),
      }),
      video: z.object({
        mimeTypes: z.array(z.string()),
        maxBytes: z.int(),
        minDurationSec: z.int(),
        maxDurationSec: z.int(),
        maxWidthPx: z.int(),
      }),
      carousel: z.object({ minCount: z.int(), maxCount: z.int() }),
    }),
    settings: JsonSchemaObject.describe('the request field settings for an Instagram post'),
    rules: z.array(z.string()).describe('every rule in words, including those JSON Schema cannot express'),
    threadReplies: z.object({
      supported: z.literal(false),
      reason: z.string(),
      maxReplies: z.literal(0),
      mediaPerReply: z.literal('none'),
    }),
  })
  .meta({ id: 'InstagramPostingSchema' });

export type InstagramPostingSchemaBody = z.infer<typeof InstagramPostingSchemaBodySchema>;
