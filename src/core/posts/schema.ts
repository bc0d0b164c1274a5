import { z } from 'zod';
import type { IssueDetail } from '../errors.js';
import { END_DATE_RULE } from '../date-range.js';
import { storableObject } from '../operations/storable.js';
import { PROVIDER_SETTING_KEYS } from '../providers/contract.js';

/** Most platforms one create request may name (one post group per platform). */
export const MAX_PLATFORMS_PER_REQUEST = 20;
/** Bounds the work of one request; TikTok's own limits (1 video or 1–35 images) are checked per platform. */
const MAX_MEDIA_IDS = 100;
const MAX_THREAD_REPLIES = 25;
/** A week: replies follow their root, not a calendar. */
const MAX_REPLY_DELAY_MINUTES = 7 * 24 * 60;

const DateTimeSchema = z.iso.datetime({ offset: true });
/**
 * Provider settings: which keys apply and what values they take depend on the account and the post,
 * as its posting schema says (`GET /platforms/{id}/schema`, checked there). Any key no platform
 * knows is refused, which the schema states (`additionalProperties: false`).
 */
/** How every settings field states its rules: those of the account's posting schema, and storable keys. */
export const SETTINGS_RULES =
  "see the platform's posting schema; no key, at any depth, may start with $ or contain a dot or NUL";
const SettingsSchema = storableObject().meta({
  properties: Object.fromEntries(PROVIDER_SETTING_KEYS.map((key) => [key, {}])),
  additionalProperties: false,
});

/** One publishing attempt of a post, beyond the spec: what was tried and what TikTok answered. */
export const PostAttemptSchema = z
  .object({
    n: z
      .int()
      .min(1)
      .describe('1 for the first attempt; a new attempt exists only when the one before created nothing'),
    claimedAt: z.iso.datetime(),
    phase: z
      .enum(['claimed', 'init_sent', 'init_answered', 'created_nothing', 'held', 'outcome_unknown'])
      .describe(
        "how far the attempt got; init_sent means the request to the network left; held: the network's quota was used up, nothing was created and the post waits in QUEUE (errorText says until when)",
      ),
    publishId: z
      .string()
      .nullable()
      .describe("the network's id of the publish once it answered one (TikTok's publish_id, Instagram's container id)"),
    events: z.array(z.object({ at: z.iso.datetime(), what: z.string(), detail: z.string().nullable() })),
  })
  .meta({ id: 'PublishAttempt' });

/** A post (spec section 2), plus its attempt history. */
export const PostSchema = z
  .object({
    id: z.uuid(),
    groupId: z.uuid(),
    parentPostId: z.uuid().nullable().describe('null for the root; the root id for a thread reply'),
    integrationId: z.uuid().describe('the platform id'),
    content: z.string(),
    state: z
      .enum(['DRAFT', 'QUEUE', 'PUBLISHING', 'PUBLISHED', 'ERROR'])
      .describe('PUBLISHING: being sent to the network right now; ERROR: see errorText'),
    scheduledFor: z.iso.datetime().nullable(),
    delayInMinutes: z.int().nullable(),
    releaseId: z
      .string()
      .nullable()
      .describe("the network's post id once known (TikTok's post id, Instagram's media id)"),
    releaseUrl: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()),
    mediaIds: z.array(z.string()),
    errorText: z
      .string()
      .nullable()
      .describe(
        'for ERROR: what went wrong and what to do; for QUEUE after a hold: why the network holds it and until when',
      ),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    attempts: z.array(PostAttemptSchema).describe('beyond the spec: the publishing attempts, oldest first'),
  })
  .meta({ id: 'Post' });

export const PostGroupSchema = z
  .object({ root: PostSchema, children: z.array(PostSchema).describe('thread replies, in order') })
  .meta({ id: 'PostGroup' });

export const PostListSchema = z.object({ posts: z.array(PostSchema) }).meta({ id: 'PostList' });

const IssueSchema = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
  platformId: z.uuid().optional(),
});

const CreatedEntrySchema = z.object({
  platformId: z.uuid(),
  status: z.literal('created'),
  post: PostGroupSchema,
});

const FailedEntrySchema = z.object({
  platformId: z.uuid(),
  status: z.literal('failed'),
  error: z
    .object({ code: z.string(), message: z.string(), details: z.array(IssueSchema).optional() })
    .describe('why this platform got no post; the same body as an error response'),
});

export const CreatePostsResultSchema = z
  .object({ results: z.array(z.discriminatedUnion('status', [CreatedEntrySchema, FailedEntrySchema])) })
  .meta({ id: 'PostCreateResults' });
export type CreatePostsResult = z.infer<typeof CreatePostsResultSchema>;

export const ThreadReplySchema = z.object({
  text: z.string().describe('the reply text'),
  delayInMinutes: z
    .int()
    .min(0)
    .max(MAX_REPLY_DELAY_MINUTES)
    .nullable()
    .optional()
    .describe('minutes after the root post was published; null or omitted: right after it'),
  settings: SettingsSchema.optional().describe(`provider settings of the reply; default {}; ${SETTINGS_RULES}`),
  mediaIds: z.array(z.uuid()).max(MAX_MEDIA_IDS).optional().describe('only where the platform schema allows'),
});
export type ThreadReplyInput = z.infer<typeof ThreadReplySchema>;

/** `scheduledFor` must come with mode schedule: the cross-field rule of create and publish alike. */
export function requireTimeToSchedule(input: { mode: string; scheduledFor?: string | undefined }): IssueDetail[] {
  return input.mode === 'schedule' && input.scheduledFor === undefined
    ? [{ path: ['scheduledFor'], message: 'scheduledFor is required when mode is schedule' }]
    : [];
}

/** The same rule in the JSON Schema of each body, so clients and validators see it too. */
export const SCHEDULE_NEEDS_TIME: z.GlobalMeta = {
  if: { properties: { mode: { const: 'schedule' } }, required: ['mode'] },
  then: { required: ['scheduledFor'] },
};

/** What create posts takes; its mode/scheduledFor rule is `requireTimeToSchedule`. */
export const CreatePostsInputSchema = z
  .object({
    platformIds: z
      .array(z.uuid())
      .min(1)
      .max(MAX_PLATFORMS_PER_REQUEST)
      .superRefine((ids, ctx) => {
        ids.forEach((id, index) => {
          if (ids.indexOf(id) !== index) {
            ctx.addIssue({ code: 'custom', path: [index], message: `platform ${id} is listed twice` });
          }
        });
      })
      // The rule above, stated in the JSON Schema so clients and validators see it too.
      .meta({ uniqueItems: true })
      .describe('from list platforms, each once; each gets its own post group'),
    content: z
      .string()
      .describe(
        "the caption (video) or description (photo); its length limit, in UTF-16 code units, is in the platform's posting schema",
      ),
    mode: z.enum(['now', 'schedule', 'draft']).describe('required, no default'),
    scheduledFor: DateTimeSchema.optional().describe('required for schedule, in the future; ignored otherwise'),
    mediaIds: z
      .array(z.uuid())
      .max(MAX_MEDIA_IDS)
      .default([])
      .describe(
        "READY media, in order, as each platform's posting schema allows (TikTok: one video or 1 to 35 images; Instagram: 1 image, 2 to 10 images and videos, or 1 video)",
      ),
    settings: SettingsSchema.optional().describe(
      `provider settings, one object for every platform of the request: each network takes the keys its posting schema declares and ignores those another network of the same request declares; a key that no network of the request declares is refused; ${SETTINGS_RULES}`,
    ),
    threadReplies: z
      .array(ThreadReplySchema)
      .max(MAX_THREAD_REPLIES)
      .default([])
      .describe('replies posted after the root; TikTok supports none'),
  })
  .meta(SCHEDULE_NEEDS_TIME);
export type CreatePostsInput = z.infer<typeof CreatePostsInputSchema>;

export const ListPostsInputSchema = z.object({
  startDate: DateTimeSchema.optional().describe('inclusive; default endDate minus 93 days, or 31 days ago'),
  endDate: DateTimeSchema.optional().describe(`exclusive; default startDate plus 93 days; ${END_DATE_RULE}`),
});
export type ListPostsInput = z.infer<typeof ListPostsInputSchema>;

/** The post an operation acts on; a thread reply's id stands for its group. */
export const PostIdInputSchema = z.object({
  id: z.uuid().describe("the id of a post of the group, or the group's id (which stands for its root post)"),
});

export const ReschedulePostInputSchema = PostIdInputSchema.extend({
  scheduledFor: DateTimeSchema.describe('the new time, in the future'),
});
export type ReschedulePostInput = z.infer<typeof ReschedulePostInputSchema>;

/** What publish takes; its mode/scheduledFor rule is `requireTimeToSchedule`. */
export const PublishPostInputSchema = PostIdInputSchema.extend({
  mode: z.enum(['now', 'schedule']).default('now'),
  scheduledFor: DateTimeSchema.optional().describe('required for schedule, in the future; ignored otherwise'),
  content: z
    .string()
    .optional()
    .describe("reviewed content, stored before publishing; its length limit is in the platform's posting schema"),
  settings: SettingsSchema.optional().describe(
    `reviewed provider settings, stored before publishing (replace all); ${SETTINGS_RULES}`,
  ),
}).meta(SCHEDULE_NEEDS_TIME);
export type PublishPostInput = z.infer<typeof PublishPostInputSchema>;
