import { z } from 'zod';
import { SURFACES } from '../actor.js';
import { END_DATE_RULE } from '../date-range.js';
import { AUDIT_ACTIONS, AUDIT_SUBJECT_TYPES } from './documents.js';

const DateTimeSchema = z.iso.datetime({ offset: true });

export const ListAuditEntriesInputSchema = z.object({
  startDate: DateTimeSchema.optional().describe('from (inclusive); default endDate minus 30 days'),
  endDate: DateTimeSchema.optional().describe(`to (exclusive); default now; ${END_DATE_RULE}`),
  action: z.enum(AUDIT_ACTIONS).optional().describe('only entries of this action'),
  actor: z.string().min(1).max(100).optional().describe("only entries by this actor: a user's id or an API key's id"),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('page size, 1 to 100; default 50'),
  cursor: z.string().min(1).max(300).optional().describe('nextCursor of the previous page (same filters)'),
});
export type ListAuditEntriesInput = z.output<typeof ListAuditEntriesInputSchema>;

export const AuditEntrySchema = z
  .object({
    id: z.string(),
    action: z.enum(AUDIT_ACTIONS),
    actor: z
      .object({
        type: z.enum(['api_key', 'user', 'system']),
        userId: z.string().nullable().describe("the user (a key's owner for a key); null for the system"),
        keyId: z.string().nullable().describe('the API key, when one was used'),
        chatUser: z
          .object({ platform: z.enum(['slack', 'discord']), id: z.string(), name: z.string() })
          .nullable()
          .describe("in chat, the approver who clicked (the link's key acted for them)"),
      })
      .describe('who made the change'),
    surface: z.enum(SURFACES).describe('through which surface: rest, mcp, slack, discord, web, cli or system'),
    subject: z.object({ type: z.enum(AUDIT_SUBJECT_TYPES), id: z.string() }).describe('what changed'),
    at: z.iso.datetime(),
    details: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .describe('a few facts about the change (never a secret)'),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.output<typeof AuditEntrySchema>;

export const AuditEntryListSchema = z
  .object({
    entries: z.array(AuditEntrySchema).describe('newest first'),
    nextCursor: z.string().optional().describe('pass as `cursor` for the next page; absent on the last page'),
  })
  .meta({ id: 'AuditEntryList' });
export type AuditEntryList = z.output<typeof AuditEntryListSchema>;
