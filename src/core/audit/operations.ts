import { defineOperation } from '../operations/operation.js';
import { listAuditEntries } from './list.js';
import { AuditEntryListSchema, ListAuditEntriesInputSchema } from './schema.js';

export const listAuditEntriesOperation = defineOperation({
  name: 'list_audit_entries',
  title: 'List audit entries',
  summary:
    "The workspace's audit trail, newest first: who approved, rejected, published or deleted a post, changed the plan, created or revoked an API key, granted OAuth access, connected or disconnected a TikTok account, or linked, unlinked or changed the settings of a Slack or Discord workspace (its approvals channel, approvers, time zone), when and through which surface (rest, mcp, slack, discord, web, cli, system); for the workspace's owners only; filtered by period (default the last 30 days, at most 93), action and actor; paged with cursor",
  input: ListAuditEntriesInputSchema,
  output: AuditEntryListSchema,
  result: 'one page of audit entries, newest first',
  errors: ['invalid_request', 'forbidden'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: (deps, scope, input) => listAuditEntries(deps, scope, input),
});

/** The audit operations. */
export const auditOperations = [listAuditEntriesOperation] as const;
